package io.onceport.frontend.fingerprint;

import static io.onceport.frontend.fingerprint.ArgumentValidatorTest.JSON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FingerprinterTest {
  private static final String ACTOR = "agent:deployer";

  @TempDir Path data;
  private Fingerprinter fingerprinter;
  private ToolContract contract;
  private final ArgumentValidator validator = new ArgumentValidator();

  @BeforeEach
  void setUp() throws Exception {
    fingerprinter = new Fingerprinter(FingerprintKey.loadOrCreate(data));
    contract = ArgumentValidatorTest.createRelease();
  }

  private String fp(String argumentsJson) throws Exception {
    return fp(contract, ACTOR, argumentsJson, null);
  }

  private String fp(ToolContract c, String actor, String argumentsJson, String runId) throws Exception {
    JsonNode normalized = validator.validate(c, JSON.readTree(argumentsJson));
    return fingerprinter.fingerprint(c, actor, normalized, runId);
  }

  @Test
  void canonicalRecordHasTheSeedShape() throws Exception {
    JsonNode args = validator.validate(contract,
        JSON.readTree("{\"service\":\"cat alog\",\"version\":\"1.2\",\"note\":\"retry\"}"));
    CanonicalActionRecord r = fingerprinter.canonicalRecord(contract, ACTOR, args, "5f8097");
    assertEquals("{\"actor\":\"agent:deployer\",\"arguments\":{\"region\":\"us-east-1\",\"service\":\"cat alog\","
        + "\"version\":\"1.2\"},\"channel\":\"http\",\"credential_ref\":\"releases-api\",\"intent_scope\":\"run:5f8097\","
        + "\"method\":\"POST\",\"target\":\"http://127.0.0.1:8766/v1/releases/cat%20alog\",\"tool\":\"create_release\"}",
        r.canonicalJson());
    assertEquals(fingerprinter.key().hmac(r.canonicalBytes()), fingerprinter.fingerprint(r));
    assertTrue(fingerprinter.fingerprint(r).matches("hmac-sha256:[0-9a-f]{64}"));
  }

  @Test
  void argumentOrderWhitespaceAndExplicitDefaultDoNotChangeTheFingerprint() throws Exception {
    String base = fp("{\"service\":\"catalog\",\"version\":\"1.2\"}");
    assertEquals(base, fp("{\"version\":\"1.2\",\"service\":\"catalog\"}"));
    assertEquals(base, fp("{\n  \"service\" : \"catalog\" ,\t\"version\":\"1.2\"\n}"));
    assertEquals(base, fp("{\"service\":\"catalog\",\"version\":\"1.2\",\"region\":\"us-east-1\"}"));
    assertEquals(base, fp("{\"service\":\"catalog\",\"version\":\"1.2\",\"note\":\"an ignored field\"}"));
  }

  @Test
  void changedArgumentActorRunOrCredentialChangesTheFingerprint() throws Exception {
    String args = "{\"service\":\"catalog\",\"version\":\"1.2\"}";
    String base = fp(args);
    assertNotEquals(base, fp("{\"service\":\"catalog\",\"version\":\"1.3\"}"));
    assertNotEquals(base, fp("{\"service\":\"catalog\",\"version\":\"1.2\",\"region\":\"eu-west-1\"}"));
    assertNotEquals(base, fp(contract, "agent:other", args, null));
    assertNotEquals(base, fp(contract, ACTOR, args, "run-1"));
    assertNotEquals(fp(contract, ACTOR, args, "run-1"), fp(contract, ACTOR, args, "run-2"));
    HttpSpec h = contract.http();
    ToolContract otherCredential = new ToolContract(contract.tool(), contract.description(), contract.inputSchema(),
        null, contract.channel(), new HttpSpec(h.method(), h.url(), h.body(), h.headers(), h.idempotencyHeader(),
            "other-identity", h.timeoutMillis()), null, contract.replay(), contract.fingerprintIgnore(),
        contract.fingerprintSecret());
    assertNotEquals(base, fp(otherCredential, ACTOR, args, null));
    assertNotEquals(base, new Fingerprinter(FingerprintKey.loadOrCreate(data.resolve("other")))
        .fingerprint(contract, ACTOR, validator.validate(contract, JSON.readTree(args)), null));
  }

  @Test
  void secretArgumentIsOnlyPresentAsItsHmac() throws Exception {
    JsonNode args = validator.validate(contract,
        JSON.readTree("{\"service\":\"catalog\",\"version\":\"1.2\",\"api_token\":\"tok-12345-secret\"}"));
    CanonicalActionRecord r = fingerprinter.canonicalRecord(contract, ACTOR, args, null);
    assertFalse(r.canonicalJson().contains("tok-12345-secret"), r.canonicalJson());
    assertEquals(fingerprinter.key().hmac("tok-12345-secret"), r.tree().path("arguments").path("api_token").asText());
    assertEquals("actor:agent:deployer", r.tree().path("intent_scope").asText());
    assertNotEquals(fp("{\"service\":\"catalog\",\"version\":\"1.2\",\"api_token\":\"a\"}"),
        fp("{\"service\":\"catalog\",\"version\":\"1.2\",\"api_token\":\"b\"}"));
    assertEquals("{\"api_token\":\"***\",\"region\":\"us-east-1\",\"service\":\"catalog\",\"version\":\"1.2\"}",
        Fingerprinter.maskedArguments(contract, args));
  }

  @Test
  void httpTargetDropsQueryAndDefaultPortAndKeepsSecretPlaceholders() throws Exception {
    Path dir = Files.createDirectory(data.resolve("contracts"));
    Files.writeString(dir.resolve("t.yaml"), """
        tool: t
        input_schema:
          type: object
          properties: {team: {type: string}, token: {type: string}, q: {type: string}}
        channel: http
        http: {method: GET, url: "HTTPS://Api.Example.com:443/v1/{{team}}/{{token}}?q={{q}}&key={{token}}"}
        replay: {class: read_only}
        fingerprint: {secret: [token]}
        """);
    ToolContract c = new ContractLoader().load(dir).find("t").orElseThrow();
    JsonNode args = validator.validate(c, JSON.readTree("{\"team\":\"a/b\",\"token\":\"zzz-secret\",\"q\":\"x\"}"));
    CanonicalActionRecord r = fingerprinter.canonicalRecord(c, ACTOR, args, null);
    assertEquals("https://api.example.com/v1/a%2Fb/{{token}}", r.tree().path("target").asText());
    assertFalse(r.canonicalJson().contains("zzz-secret"));
    assertFalse(r.tree().has("credential_ref"), "null fields are omitted");
  }

  @Test
  void sshRecordCoversHostIdentityAccountArgvAndWorkingDir() throws Exception {
    Path dir = Files.createDirectory(data.resolve("contracts"));
    String contractYaml = """
        tool: migrate
        input_schema:
          type: object
          properties: {version: {type: string}, password: {type: string}}
        channel: ssh
        ssh:
          host: DB1.example
          port: 2222
          user: deploy
          host_key: "SHA256:%s"
          credential: deploy-ssh
          command: ["/opt/app/bin/migrate", "--to", "{{version}}", "--password={{password}}"]
          working_dir: /opt/app
          marker: true
        replay: {class: status_query}
        fingerprint: {secret: [password]}
        """;
    Files.writeString(dir.resolve("m.yaml"), contractYaml.formatted("AAAA"));
    ToolContract c = new ContractLoader().load(dir).find("migrate").orElseThrow();
    JsonNode args = validator.validate(c, JSON.readTree("{\"version\":\"; rm -rf /\",\"password\":\"hunter2\"}"));
    CanonicalActionRecord r = fingerprinter.canonicalRecord(c, ACTOR, args, null);
    String hmac = fingerprinter.key().hmac("hunter2");
    assertEquals("{\"actor\":\"agent:deployer\",\"arguments\":{\"password\":\"" + hmac + "\",\"version\":\"; rm -rf /\"},"
        + "\"channel\":\"ssh\",\"command\":[\"/opt/app/bin/migrate\",\"--to\",\"; rm -rf /\",\"--password=" + hmac + "\"],"
        + "\"credential_ref\":\"deploy-ssh\",\"host_key\":\"SHA256:AAAA\",\"intent_scope\":\"actor:agent:deployer\","
        + "\"method\":\"exec\",\"target\":\"ssh://deploy@db1.example:2222\",\"tool\":\"migrate\","
        + "\"working_dir\":\"/opt/app\"}", r.canonicalJson());
    assertFalse(r.canonicalJson().contains("hunter2"));

    Files.writeString(dir.resolve("m.yaml"), contractYaml.formatted("BBBB"));
    ToolContract otherHost = new ContractLoader().load(dir).find("migrate").orElseThrow();
    assertNotEquals(fingerprinter.fingerprint(r), fingerprinter.fingerprint(otherHost, ACTOR,
        args, null), "a different pinned host key is a different target");
  }
}
