package io.onceport.workflow.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.contract.McpContractRoundTripTest.RawJson;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyRequest;
import io.temporal.common.converter.DataConverter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code until_verified} model: its checks, its schedule, and its trip through the data converter. */
class VerifySpecTest {
  static final VerifySpec ROTATE = VerifySpec.newBuilder()
      .setHttp("GET", "http://127.0.0.1:8766/v1/credentials/{{service}}/active")
      .setEvery(Duration.ofSeconds(30))
      .setGiveUpAfter(Duration.ofDays(7))
      .setVerifiedWindow(Duration.ofMinutes(10))
      .setVerifiedWhen(new VerifyCondition(List.of(200), "/key_id", "/new_key_id", null, null))
      .setNotAppliedWhen(new VerifyCondition(List.of(200), "/key_id", "/old_key_id", null, null))
      .build();

  static ToolContract rotateCredential(ReplayClass replay) {
    return new ToolContract("rotate_credential", "Rotate a credential.", "{\"type\":\"object\"}", null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://127.0.0.1:8766/v1/credentials/{{service}}/rotate", null, Map.of(), "Idempotency-Key",
            null, 30_000),
        null, new ReplaySpec(replay, Duration.ofHours(1), null, ROTATE), List.of(), List.of());
  }

  private static <T> T roundTrip(T value, Class<T> type) {
    DataConverter converter = DataConverter.getDefaultInstance();
    return converter.fromPayload(converter.toPayload(value).orElseThrow(), type, type);
  }

  @Test
  void defaultsAreEveryThirtySecondsForSevenDaysAndNoVerifiedWindow() {
    VerifySpec v = VerifySpec.newBuilder().setHttp("GET", "http://h/x")
        .setVerifiedWhen(VerifyCondition.status(List.of(200))).build();

    assertEquals(Duration.ofSeconds(30), v.every());
    assertEquals(Duration.ofDays(7), v.giveUpAfter());
    assertEquals(Duration.ZERO, v.verifiedWindow());
    assertNull(v.notAppliedWhen());
    assertEquals("GET http://h/x", v.target());
  }

  @Test
  void theScheduleDoublesFromEveryUpToAnHourOrEveryIfLonger() {
    assertEquals(List.of(30L, 60L, 120L, 240L, 480L, 960L, 1920L, 3600L, 3600L),
        java.util.stream.IntStream.rangeClosed(1, 9).mapToObj(n -> ROTATE.intervalBefore(n).toSeconds()).toList());
    assertEquals(Duration.ofHours(1), ROTATE.intervalBefore(1_000_000));
    VerifySpec daily = VerifySpec.newBuilder().setHttp("GET", "http://h/x").setEvery(Duration.ofDays(1))
        .setGiveUpAfter(Duration.ofDays(30)).setVerifiedWhen(VerifyCondition.status(List.of(200))).build();
    assertEquals(Duration.ofDays(1), daily.intervalBefore(5));
    // A week at the cap: 173 checks.
    long checks = 0;
    long elapsed = 0;
    while (elapsed + ROTATE.intervalBefore((int) checks + 1).toMillis() <= ROTATE.giveUpAfter().toMillis()) {
      elapsed += ROTATE.intervalBefore((int) ++checks).toMillis();
    }
    assertEquals(173, checks);
  }

  @Test
  void invalidSpecsAreRefusedWithTheField() {
    VerifyCondition ok = VerifyCondition.status(List.of(200));
    assertEquals("Invalid every: PT0.5S (at least PT1S)", assertThrows(IllegalArgumentException.class, () -> VerifySpec.newBuilder()
        .setHttp("GET", "http://h/x").setEvery(Duration.ofMillis(500)).setVerifiedWhen(ok).build()).getMessage());
    assertEquals("Invalid give_up_after: PT10S is shorter than every (PT30S)", assertThrows(IllegalArgumentException.class,
        () -> VerifySpec.newBuilder().setHttp("GET", "http://h/x").setGiveUpAfter(Duration.ofSeconds(10)).setVerifiedWhen(ok)
            .build()).getMessage());
    assertEquals("Invalid verify: verified_when and not_applied_when are the same condition", assertThrows(
        IllegalArgumentException.class, () -> VerifySpec.newBuilder().setHttp("GET", "http://h/x").setVerifiedWhen(ok)
            .setNotAppliedWhen(VerifyCondition.status(List.of(200))).build()).getMessage());
    assertEquals("Invalid verify: give method and url (http), tool (mcp) or command (ssh)", assertThrows(IllegalArgumentException.class,
        () -> VerifySpec.newBuilder().setVerifiedWhen(ok).build()).getMessage());
    assertEquals("Invalid verify: give method and url (http), tool (mcp) or command (ssh)", assertThrows(IllegalArgumentException.class,
        () -> VerifySpec.newBuilder().setHttp("GET", "http://h/x").setSsh(List.of("cat", "/k")).setVerifiedWhen(ok).build())
            .getMessage());
    assertEquals("Invalid verify: command is empty", assertThrows(IllegalArgumentException.class,
        () -> VerifySpec.newBuilder().setSsh(List.of()).setVerifiedWhen(ok).build()).getMessage());
    assertEquals("verifiedWhen == null", assertThrows(NullPointerException.class,
        () -> VerifySpec.newBuilder().setHttp("GET", "http://h/x").build()).getMessage());
    assertEquals("Invalid condition: pointer /k needs exactly one of equals_result, equals, equals_argument (has 2)",
        assertThrows(IllegalArgumentException.class, () -> new VerifyCondition(List.of(200), "/k", "/a", "1", null)).getMessage());
    assertEquals("Invalid condition: equals_result, equals and equals_argument need a pointer",
        assertThrows(IllegalArgumentException.class, () -> new VerifyCondition(List.of(200), null, "/a", null, null)).getMessage());
    assertEquals("Invalid pointer: key_id (a JSON Pointer starts with /, e.g. /key_id)",
        assertThrows(IllegalArgumentException.class, () -> new VerifyCondition(List.of(200), "key_id", "/a", null, null)).getMessage());
    assertEquals("Invalid equals_result: /a~2 (~ is written ~0, / inside a name ~1)",
        assertThrows(IllegalArgumentException.class, () -> new VerifyCondition(List.of(200), "/k", "/a~2", null, null)).getMessage());
  }

  @Test
  void untilVerifiedIsNotForReadOnlyAndEachChannelChecksItsOwnWay() {
    assertEquals("Invalid attach window: until_verified is not for class read_only (a read has no effect)",
        assertThrows(IllegalArgumentException.class, () -> new ReplaySpec(ReplayClass.READ_ONLY, Duration.ofHours(1), null, ROTATE))
            .getMessage());
    SshSpec ssh = new SshSpec("h", 22, "u", "SHA256:k", "c", null, List.of("rotate"), null, true, "onceport-run", null, 1000);
    assertEquals("replay.verify of an ssh tool needs command (a read-only command)",
        assertThrows(IllegalArgumentException.class, () -> new ToolContract("t", null, "{}", null, ToolContract.Channel.SSH, null,
            ssh, new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, ROTATE), null, null)).getMessage());
    VerifySpec sshCheck = VerifySpec.newBuilder().setSsh(List.of("cat", "/etc/app/{{service}}.json"))
        .setVerifiedWhen(new VerifyCondition(List.of(0), "/key_id", "/new_key_id", null, null)).build();
    ToolContract checked = new ToolContract("t", null, "{}", null, ToolContract.Channel.SSH, null, ssh,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, sshCheck), null, null);
    assertEquals("command [cat, /etc/app/{{service}}.json]", checked.replay().verify().target());
    assertEquals("replay.verify of an http tool needs method and url", assertThrows(IllegalArgumentException.class,
        () -> new ToolContract("t", null, "{}", null, ToolContract.Channel.HTTP,
            new HttpSpec("POST", "http://h/x", null, null, null, null, 1000), null,
            new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, sshCheck), null, null)).getMessage());
    VerifySpec mcpCheck = VerifySpec.newBuilder().setMcp("get_key", null).setVerifiedWhen(VerifyCondition.status(List.of(200))).build();
    assertEquals("replay.verify of an http tool needs method and url", assertThrows(IllegalArgumentException.class,
        () -> new ToolContract("t", null, "{}", null, ToolContract.Channel.HTTP,
            new HttpSpec("POST", "http://h/x", null, null, null, null, 1000), null,
            new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null, mcpCheck), null, null)).getMessage());
    assertTrue(rotateCredential(ReplayClass.IRREVERSIBLE).replay().untilVerified());
  }

  @Test
  void aContractKeptUntilVerifiedRoundTripsInADispatchAndAVerifyRequest() {
    ToolContract contract = rotateCredential(ReplayClass.IDEMPOTENCY_KEY);
    DispatchRequest send = new DispatchRequest("act_01J", "hmac-sha256:ab", contract, "{\"service\":\"billing\"}", 1);
    VerifyRequest check = new VerifyRequest("act_01J", "hmac-sha256:ab", contract, "{\"service\":\"billing\"}", 3,
        new VerifyRequest.Expectation("\"billing-key-2\"", "result /new_key_id", null),
        new VerifyRequest.Expectation(null, "result /old_key_id", "the stored result has no /old_key_id"));

    assertEquals(send, roundTrip(send, DispatchRequest.class));
    assertEquals(check, roundTrip(check, VerifyRequest.class));
    assertEquals(ROTATE, roundTrip(contract, ToolContract.class).replay().verify());
    VerifySpec mcp = VerifySpec.newBuilder().setMcp("get_key", "{\"service\":\"{{service}}\"}")
        .setVerifiedWhen(new VerifyCondition(List.of(), "/key_id", null, "\"k2\"", null)).build();
    assertEquals(mcp, roundTrip(mcp, VerifySpec.class));
    VerifySpec ssh = VerifySpec.newBuilder().setSsh(List.of("cat", "/etc/app/{{service}}.json"))
        .setVerifiedWhen(new VerifyCondition(List.of(0), "/key_id", "/new_key_id", null, null)).build();
    assertEquals(ssh, roundTrip(ssh, VerifySpec.class));
  }

  @Test
  void aVerifyAnswerRoundTrips() {
    VerifyAnswer answer = new VerifyAnswer(VerifyAnswer.Verdict.NOT_APPLIED, 200,
        List.of(new VerifyAnswer.Held("not_applied_when", "/key_id", "\"billing-key-1\"", "\"billing-key-1\"")), "old key active");
    assertEquals(answer, roundTrip(answer, VerifyAnswer.class));
    assertEquals(VerifyAnswer.noAnswer("refused"), roundTrip(VerifyAnswer.noAnswer("refused"), VerifyAnswer.class));
  }

  @Test
  void aReplaySpecWrittenBeforeVerificationStillReadsAsKeptByTime() {
    DataConverter converter = DataConverter.getDefaultInstance();
    String before = "{\"replayClass\":\"IRREVERSIBLE\",\"attachWindow\":86400.000000000,\"status\":null}";
    ReplaySpec old = converter.fromPayload(converter.toPayload(new RawJson(before)).orElseThrow(), ReplaySpec.class, ReplaySpec.class);
    assertNull(old.verify());
    assertEquals(Duration.ofHours(24), old.attachWindow());
    assertEquals(false, old.untilVerified());
  }
}
