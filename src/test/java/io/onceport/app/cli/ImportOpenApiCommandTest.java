package io.onceport.app.cli;

import static io.onceport.app.cli.AgentCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code contracts import-openapi} on the OpenAPI 3.0 Petstore example and a payments document. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ImportOpenApiCommandTest {
  private static final String PETSTORE = "src/test/resources/openapi/petstore.yaml";
  private static final String PAYMENTS = "src/test/resources/openapi/payments.yaml";

  @TempDir Path tmp;

  @Test
  void thePetstoreExampleBecomesContractsThatLoadWithProposedClasses() throws Exception {
    AgentCommandTest.Run r = run("contracts", "import-openapi", PETSTORE, "--operation", "listPets", "createPets", "showPetById",
        "--out", tmp.toString());
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("wrote " + tmp.resolve("createPets.yaml") + "  irreversible  (operation createPets)"), r.out());

    ContractSet set = new ContractLoader().load(tmp);
    assertEquals(3, set.size());
    ToolContract list = set.find("listPets").orElseThrow();
    assertEquals(ReplayClass.READ_ONLY, list.replayClass());
    assertEquals("GET", list.http().method());
    ToolContract show = set.find("showPetById").orElseThrow();
    assertEquals("http://petstore.swagger.io/v1/pets/{{petId}}", show.http().url());
    assertTrue(show.inputSchema().contains("\"required\":[\"petId\"]"), show.inputSchema());
    ToolContract create = set.find("createPets").orElseThrow();
    assertEquals(ReplayClass.IRREVERSIBLE, create.replayClass());
    assertEquals("\"{{body}}\"", create.http().body());
    com.fasterxml.jackson.databind.JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(create.inputSchema())
        .at("/properties/body");
    assertEquals("object", body.get("type").asText(), create.inputSchema());
    assertEquals("[\"id\",\"name\"]", body.get("required").toString());
    assertEquals("int64", body.at("/properties/id/format").asText());
    String text = Files.readString(tmp.resolve("createPets.yaml"));
    assertTrue(text.contains("# Proposed replay class: irreversible."), text);
    assertTrue(text.contains("without a declared Idempotency-Key header"), text);
    // the optional query parameter without a default cannot be templated: left out, and said so
    assertTrue(Files.readString(tmp.resolve("listPets.yaml")).contains("query parameter limit is optional without a default"));

    AgentCommandTest.Run check = run("contracts", "check", tmp.toString());
    assertEquals(0, check.exit(), check.err());
    assertEquals("ok  createPets  http  irreversible\nok  listPets  http  read_only\nok  showPetById  http  read_only\n", check.out());
  }

  @Test
  void aDeclaredIdempotencyKeyHeaderBecomesIdempotencyHeaderAndClassIdempotencyKey() throws Exception {
    AgentCommandTest.Run r = run("contracts", "import-openapi", PAYMENTS, "--all", "--out", tmp.toString(), "--prefix", "pay_",
        "--credential", "payments-api");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("skipped paymentExists: HEAD is not a method contracts dispatch"), r.out());

    ContractSet set = new ContractLoader().load(tmp);
    ToolContract create = set.find("pay_createPayment").orElseThrow();
    assertEquals(ReplayClass.IDEMPOTENCY_KEY, create.replayClass());
    assertEquals("Idempotency-Key", create.http().idempotencyHeader());
    assertEquals("payments-api", create.http().credential());
    assertEquals("https://payments.example.com/api/payments?dry_run={{dry_run}}", create.http().url());
    assertEquals("{{X-Region}}", create.http().headers().get("X-Region"));
    assertFalse(create.inputSchema().contains("Idempotency-Key"), "the key is the execution id, not an argument");
    assertTrue(create.inputSchema().contains("\"note\":{\"type\":[\"string\",\"null\"]}"), create.inputSchema());
    assertTrue(create.inputSchema().contains("\"examples\":[1200]"), create.inputSchema());
    assertTrue(create.inputSchema().contains("\"dry_run\":{\"type\":\"boolean\",\"default\":false}"), create.inputSchema());
    ToolContract refund = set.find("pay_refundPayment").orElseThrow();
    assertEquals(ReplayClass.IRREVERSIBLE, refund.replayClass());
    assertEquals("DELETE", refund.http().method());
  }

  @Test
  void badInputIsAOneLineErrorAndWritesNothing() throws Exception {
    AgentCommandTest.Run missing = run("contracts", "import-openapi", "nope.yaml", "--all", "--out", tmp.toString());
    assertEquals(1, missing.exit());
    assertEquals("onceport: nope.yaml: no such file\n", missing.err());

    AgentCommandTest.Run unknown = run("contracts", "import-openapi", PETSTORE, "--operation", "deletePet", "--out", tmp.toString());
    assertEquals(1, unknown.exit());
    assertTrue(unknown.err().contains("--operation deletePet: ") && unknown.err().contains("has no such operation (it has listPets, createPets, showPetById)"),
        unknown.err());

    Path notApi = tmp.resolve("not-openapi.yaml");
    Files.writeString(notApi, "hello: world\n");
    AgentCommandTest.Run bad = run("contracts", "import-openapi", notApi.toString(), "--all", "--out", tmp.resolve("out").toString());
    assertEquals(1, bad.exit());
    assertTrue(bad.err().contains("not an OpenAPI document"), bad.err());
    assertEquals(List.of(notApi), Files.list(tmp).toList(), "nothing written");
  }

  @Test
  void serverOverridesTheDocumentsBaseUrl() throws Exception {
    AgentCommandTest.Run r = run("contracts", "import-openapi", PETSTORE, "--operation", "showPetById", "--server",
        "http://127.0.0.1:9999/petstore/", "--out", tmp.toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals("http://127.0.0.1:9999/petstore/pets/{{petId}}",
        new ContractLoader().load(tmp).find("showPetById").orElseThrow().http().url());
  }

  @Test
  void anExistingContractIsNotOverwrittenWithoutForce() throws Exception {
    Files.writeString(tmp.resolve("listPets.yaml"), "# edited by an operator\n");
    AgentCommandTest.Run r = run("contracts", "import-openapi", PETSTORE, "--operation", "listPets", "--out", tmp.toString());
    assertEquals(1, r.exit());
    assertTrue(r.err().contains("listPets.yaml exists; not overwritten (--force to replace it)"), r.err());
    assertEquals("# edited by an operator\n", Files.readString(tmp.resolve("listPets.yaml")));

    assertEquals(0, run("contracts", "import-openapi", PETSTORE, "--operation", "listPets", "--out", tmp.toString(), "--force").exit());
    assertTrue(Files.readString(tmp.resolve("listPets.yaml")).contains("tool: listPets"));
  }
}
