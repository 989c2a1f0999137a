package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.McpClient;
import io.onceport.testing.Records;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code attach_window: until_verified} on a real Temporal server (the Temporal CLI's dev server),
 * through the MCP front end, against the demo target's credential API: the shipped {@code
 * rotate_credential} contract with its schedule shortened to seconds (the days-long waits are {@code
 * UntilVerifiedTest}'s, on the time-skipping engine). A rotation applied late is not rotated again
 * by the agent's retry while unverified; once the new key is active it is verified, identical calls
 * attach for the verified window, and after it (and the run's closing) an identical call is a new
 * rotation.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class UntilVerifiedOnTemporalServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private GatewayHarness gateway;

  @BeforeEach
  void start() throws Exception {
    String fast = Files.readString(Path.of("contracts", "rotate_credential.yaml"))
        .replace("tool: rotate_credential", "tool: rotate_credential_fast")
        .replace("every: PT30S", "every: PT1S")
        .replace("verified_window: PT10M", "verified_window: PT3S")
        .replace("settle: PT30S", "settle: PT1S");
    gateway = GatewayHarness.onTemporalCli(TemporalCli.binaryOrSkip(), Duration.ofSeconds(20),
        Map.of("rotate_credential_fast.yaml", fast));
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private long rotations(String service) {
    return gateway.target.ledger().stream()
        .filter(e -> e.acted() && e.path().equals("/v1/credentials/" + service + "/rotate")).count();
  }

  @Test
  void aRetryWhileUnverifiedAttachesAndAfterVerificationAndItsWindowOneIsANewRotation() throws Exception {
    McpClient client = gateway.client();
    JsonNode args = JSON.readTree("{\"service\":\"billing\",\"reason\":\"quarterly\"}");
    gateway.armFault("apply-late=6000", 1); // answered at once; the new key is active 6 s later
    JsonNode first = client.call(1, "rotate_credential_fast", args).get("result");
    String id = first.at("/structuredContent/execution_id").asText();
    assertEquals("completed", first.at("/structuredContent/state").asText(), first.toString());
    String answer = first.at("/content/0/text").asText();
    assertTrue(answer.contains("\"new_key_id\":\"billing-key-2\""), answer);

    JsonNode retry = client.call(2, "rotate_credential_fast", args).get("result");
    assertEquals(id, retry.at("/structuredContent/execution_id").asText(), retry.toString());
    assertTrue(retry.at("/structuredContent/attached").asBoolean(), retry.toString());
    assertEquals("pending", retry.at("/structuredContent/verification").asText(), retry.toString());
    assertTrue(retry.at("/structuredContent/message").asText().contains("not repeated until a check"), retry.toString());
    assertEquals(answer, retry.at("/content/0/text").asText(), "the retry gets the stored result");
    assertEquals(1, rotations("billing"));

    ExecutionRecord verified = gateway.awaitRecord(id, r -> r.verification() != null
        && ExecutionRecord.Verification.VERIFIED.equals(r.verification().state()), Duration.ofSeconds(60));
    assertTrue(verified.verification().checks().stream().anyMatch(c -> c.verdict().equals("not_yet_known") && c.status() == 202),
        "a check saw the rotation still being applied: " + verified.verification().checks());
    JsonNode within = client.call(3, "rotate_credential_fast", args).get("result");
    assertEquals(id, within.at("/structuredContent/execution_id").asText(), within.toString());
    assertEquals("verified", within.at("/structuredContent/verification").asText(), within.toString());
    assertEquals(1, rotations("billing"));

    awaitClosed(id, Duration.ofSeconds(120));
    JsonNode later = client.call(4, "rotate_credential_fast", args).get("result");
    assertNotEquals(id, later.at("/structuredContent/execution_id").asText(), later.toString());
    assertFalse(later.at("/structuredContent/attached").asBoolean(), later.toString());
    assertEquals(2, rotations("billing"), "a call after the verified window is a new intent");
  }

  private void awaitClosed(String executionId, Duration timeout) throws InterruptedException {
    Records.awaitClosed(gateway.directory, executionId, timeout);
  }
}
