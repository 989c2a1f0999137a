package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArgumentValidatorTest {
  static final ObjectMapper JSON = new ObjectMapper();
  private final ArgumentValidator validator = new ArgumentValidator();

  static ToolContract createRelease() throws Exception {
    return new ContractLoader().load(Path.of("src/test/resources/contracts-valid")).find("create_release").orElseThrow();
  }

  static ToolContract withSchema(String schema) {
    return new ToolContract("t", "", schema, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://h/x", null, null, null, null, 1000), null,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), null, null);
  }

  @Test
  void defaultsAreMaterializedAndInputIsNotModified() throws Exception {
    JsonNode in = JSON.readTree("{\"version\":\"1.2\",\"service\":\"catalog\"}");
    JsonNode out = validator.validate(createRelease(), in);
    assertEquals(JSON.readTree("{\"service\":\"catalog\",\"version\":\"1.2\",\"region\":\"us-east-1\"}"), out);
    assertEquals(JSON.readTree("{\"version\":\"1.2\",\"service\":\"catalog\"}"), in);
  }

  @Test
  void explicitValueWinsOverDefault() throws Exception {
    JsonNode out = validator.validate(createRelease(),
        JSON.readTree("{\"service\":\"catalog\",\"version\":\"1.2\",\"region\":\"eu-west-1\"}"));
    assertEquals("eu-west-1", out.get("region").asText());
  }

  @Test
  void nestedDefaultsAreMaterializedWhereTheSchemaDeclaresProperties() throws Exception {
    ToolContract c = withSchema("{\"type\":\"object\",\"properties\":{\"opts\":{\"type\":\"object\",\"properties\":"
        + "{\"dry_run\":{\"type\":\"boolean\",\"default\":false},\"depth\":{\"type\":\"integer\",\"default\":3}}}}}");
    assertEquals(JSON.readTree("{\"opts\":{\"depth\":1,\"dry_run\":false}}"),
        validator.validate(c, JSON.readTree("{\"opts\":{\"depth\":1}}")));
    assertEquals(JSON.readTree("{}"), validator.validate(c, null));
  }

  @Test
  void wrongTypeNamesTheField() throws Exception {
    InvalidArgumentsException e = assertThrows(InvalidArgumentsException.class, () -> validator.validate(
        createRelease(), JSON.readTree("{\"service\":\"catalog\",\"version\":\"1\",\"region\":5}")));
    assertEquals(List.of("region: must be a string"), e.errors());
    assertEquals("region: must be a string", e.getMessage());
  }

  @Test
  void missingRequiredPropertyNamesTheField() throws Exception {
    InvalidArgumentsException e = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(createRelease(), JSON.readTree("{\"version\":\"1\"}")));
    assertEquals(List.of("service: required property missing"), e.errors());
  }

  @Test
  void everyErrorIsReportedAndValuesAreNotEchoed() throws Exception {
    InvalidArgumentsException e = assertThrows(InvalidArgumentsException.class, () -> validator.validate(
        createRelease(), JSON.readTree("{\"version\":7,\"api_token\":\"s3cret\",\"extra\":\"s3cret\"}")));
    assertEquals(List.of("service: required property missing", "version: must be a string", "extra: unknown property"),
        e.errors().stream().sorted((a, b) -> order(a) - order(b)).toList());
    assertEquals(false, e.getMessage().contains("s3cret"));
  }

  private static int order(String m) {
    return m.startsWith("service") ? 0 : m.startsWith("version") ? 1 : 2;
  }

  @Test
  void nestedErrorsUseDottedPathsAndOtherKeywordsKeepTheLibraryMessage() throws Exception {
    ToolContract c = withSchema("{\"type\":\"object\",\"properties\":{\"opts\":{\"type\":\"object\",\"properties\":"
        + "{\"n\":{\"type\":\"integer\",\"maximum\":3}},\"required\":[\"n\"]},"
        + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
        + "\"mode\":{\"enum\":[\"fast\",\"safe\"]}}}");
    InvalidArgumentsException e = assertThrows(InvalidArgumentsException.class, () -> validator.validate(c,
        JSON.readTree("{\"opts\":{},\"tags\":[\"a\",1],\"mode\":\"x\"}")));
    assertEquals(List.of("opts.n: required property missing", "tags[1]: must be a string",
        "mode: must be one of [\"fast\",\"safe\"]"), e.errors());
    InvalidArgumentsException max = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(c, JSON.readTree("{\"opts\":{\"n\":4}}")));
    assertEquals(1, max.errors().size());
    assertEquals(true, max.errors().get(0).startsWith("opts.n: "), max.errors().get(0));
  }

  @Test
  void argumentsThatAreNotAnObjectAreRefused() throws Exception {
    InvalidArgumentsException e = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(createRelease(), JSON.readTree("[1]")));
    assertEquals(List.of("arguments: must be an object"), e.errors());
  }
}
