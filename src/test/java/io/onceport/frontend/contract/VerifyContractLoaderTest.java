package io.onceport.frontend.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code attach_window: until_verified}: what loads, and every mistake with its file, line and field. */
class VerifyContractLoaderTest {
  /** The rotation example: status_query, kept until the new key is seen active. */
  static final String ROTATE = """
      tool: rotate_credential
      input_schema:
        type: object
        required: [service]
        properties:
          service: {type: string}
          token: {type: string}
          reason: {type: string}
      channel: http
      http:
        method: POST
        url: http://127.0.0.1:8766/v1/credentials/{{service}}/rotate
        idempotency_header: Idempotency-Key
      replay:
        class: status_query
        attach_window: until_verified
        verified_window: PT10M
        status:
          method: GET
          url: http://127.0.0.1:8766/v1/credentials/{{service}}/rotations/by-key/{{execution_id}}
          completed_when: [200]
          not_executed_when: [404]
        verify:
          method: GET
          url: http://127.0.0.1:8766/v1/credentials/{{service}}/active
          every: PT30S
          give_up_after: P7D
          verified_when:     {status: [200], pointer: /key_id, equals_result: /new_key_id}
          not_applied_when:  {status: [200], pointer: /key_id, equals_result: /old_key_id}
      fingerprint:
        ignore: [reason]
        secret: [token]
      """;

  @TempDir Path tmp;

  private ToolContract load(String yaml) throws Exception {
    Files.writeString(tmp.resolve("c.yaml"), yaml);
    ContractSet set = new ContractLoader().load(tmp);
    assertEquals(List.of(), set.warnings());
    return set.contracts().get(0);
  }

  /** The errors without the file name: {@code line: field: message}. */
  private List<String> errors(String yaml) throws Exception {
    Files.writeString(tmp.resolve("c.yaml"), yaml);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    String prefix = tmp.resolve("c.yaml") + ":";
    e.errors().forEach(line -> assertTrue(line.startsWith(prefix), line));
    return e.errors().stream().map(line -> line.substring(prefix.length())).toList();
  }

  /** The line (from 1) of the first line of {@code yaml} containing {@code text}. */
  private static int line(String yaml, String text) {
    List<String> lines = yaml.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i + 1;
      }
    }
    throw new AssertionError(text + " is not in the contract");
  }

  private static String with(String from, String to) {
    assertTrue(ROTATE.contains(from), from);
    return ROTATE.replace(from, to);
  }

  @Test
  void theRotationExampleLoadsEveryField() throws Exception {
    ToolContract c = load(ROTATE);

    assertEquals(ReplayClass.STATUS_QUERY, c.replayClass());
    assertTrue(c.replay().untilVerified());
    assertEquals(ContractLoader.DEFAULT_ATTACH_WINDOW, c.replay().attachWindow(), "the window of an execution with nothing to verify");
    VerifySpec v = c.replay().verify();
    assertEquals("GET", v.method());
    assertEquals("http://127.0.0.1:8766/v1/credentials/{{service}}/active", v.url());
    assertNull(v.tool());
    assertEquals(Duration.ofSeconds(30), v.every());
    assertEquals(Duration.ofDays(7), v.giveUpAfter());
    assertEquals(Duration.ofMinutes(10), v.verifiedWindow());
    assertEquals(new VerifyCondition(List.of(200), "/key_id", "/new_key_id", null, null), v.verifiedWhen());
    assertEquals(new VerifyCondition(List.of(200), "/key_id", "/old_key_id", null, null), v.notAppliedWhen());
  }

  @Test
  void defaultsLiteralsArgumentsAndHead() throws Exception {
    String yaml = ROTATE.replace("    every: PT30S\n    give_up_after: P7D\n", "")
        .replace("  verified_window: PT10M\n", "")
        .replace("method: GET\n    url: http://127.0.0.1:8766/v1/credentials/{{service}}/active", "method: head\n    url: http://127.0.0.1:8766/v1/credentials/{{service}}/active")
        .replace("{status: [200], pointer: /key_id, equals_result: /new_key_id}", "{status: [200, 204], pointer: /state, equals: active}")
        .replace("{status: [200], pointer: /key_id, equals_result: /old_key_id}", "{status: [200], pointer: /service, equals_argument: service}");
    VerifySpec v = load(yaml).replay().verify();

    assertEquals(VerifySpec.DEFAULT_EVERY, v.every());
    assertEquals(VerifySpec.DEFAULT_GIVE_UP_AFTER, v.giveUpAfter());
    assertEquals(Duration.ZERO, v.verifiedWindow());
    assertEquals("HEAD", v.method());
    assertEquals(new VerifyCondition(List.of(200, 204), "/state", null, "\"active\"", null), v.verifiedWhen());
    assertEquals(new VerifyCondition(List.of(200), "/service", null, null, "service"), v.notAppliedWhen());
    String nullLiteral = ROTATE.replace("pointer: /key_id, equals_result: /new_key_id", "pointer: /revoked_at, equals: null");
    assertEquals("null", load(nullLiteral).replay().verify().verifiedWhen().equalsValue());
  }

  @Test
  void anMcpToolVerifiesWithAnUpstreamReadTool() throws Exception {
    String yaml = """
        tool: rotate_credential
        input_schema:
          type: object
          properties:
            service: {type: string}
        channel: mcp
        mcp: {url: http://127.0.0.1:9000/mcp, tool: rotate}
        replay:
          class: irreversible
          attach_window: until_verified
          verify:
            tool: active_credential
            arguments: {service: "{{service}}", asked_by: "{{execution_id}}"}
            verified_when: {pointer: /key_id, equals_result: /new_key_id}
        """;
    VerifySpec v = load(yaml).replay().verify();

    assertEquals("active_credential", v.tool());
    assertEquals("{\"service\":\"{{service}}\",\"asked_by\":\"{{execution_id}}\"}", v.arguments());
    assertNull(v.url());
    assertEquals(new VerifyCondition(List.of(), "/key_id", "/new_key_id", null, null), v.verifiedWhen());
    assertEquals(List.of(line(yaml, "verified_when") + ": replay.verify.verified_when.status: unknown field; known: pointer, equals_result, equals, equals_argument"),
        errors(yaml.replace("{pointer: /key_id,", "{status: [200], pointer: /key_id,")));
    assertEquals(List.of(line(yaml, "verified_when") + ": replay.verify.verified_when.pointer: required (a JSON Pointer into the "
        + "tool's structuredContent, e.g. /key_id)"), errors(yaml.replace("pointer: /key_id, equals_result: /new_key_id", "equals: x")));
    assertEquals(List.of(line(yaml, "replay:") + ": replay.verify: required with attach_window: until_verified (how to check the "
        + "effect: tool, verified_when)"), errors(yaml.substring(0, yaml.indexOf("  verify:"))));
  }

  @Test
  void untilVerifiedIsNotForReadOnly() throws Exception {
    assertEquals(List.of(line(ROTATE, "attach_window") + ": replay.attach_window: until_verified is not for class read_only (a read "
        + "has no effect to verify)"), errors(with("class: status_query", "class: read_only")));
  }

  /** An ssh tool kept until verified: the rotation done by a remote command, checked by a read-only one. */
  static final String SSH = """
      tool: rotate_host_key
      input_schema:
        type: object
        required: [service]
        properties:
          service: {type: string}
          token: {type: string}
      channel: ssh
      ssh: {host: 127.0.0.1, user: deploy, host_key: "SHA256:k", credential: c, marker: true, command: [rotate-key, "{{service}}"]}
      replay:
        class: status_query
        attach_window: until_verified
        verified_window: PT5M
        verify:
          command: [cat, "/etc/keys/{{service}}/active.json", "{{execution_id}}"]
          every: PT1M
          give_up_after: P2D
          verified_when: {status: [0], pointer: /key_id, equals_result: /new_key_id}
          not_applied_when: {status: [0], pointer: /key_id, equals_result: /old_key_id}
      fingerprint:
        secret: [token]
      """;

  @Test
  void anSshToolVerifiesWithAReadOnlyCommandOverItsConnection() throws Exception {
    VerifySpec v = load(SSH).replay().verify();

    assertEquals(List.of("cat", "/etc/keys/{{service}}/active.json", "{{execution_id}}"), v.command());
    assertNull(v.url());
    assertNull(v.method());
    assertNull(v.tool());
    assertEquals(Duration.ofMinutes(1), v.every());
    assertEquals(Duration.ofDays(2), v.giveUpAfter());
    assertEquals(Duration.ofMinutes(5), v.verifiedWindow());
    assertEquals(new VerifyCondition(List.of(0), "/key_id", "/new_key_id", null, null), v.verifiedWhen());
    assertEquals(new VerifyCondition(List.of(0), "/key_id", "/old_key_id", null, null), v.notAppliedWhen());
    String statusOnly = SSH.replace("{status: [0], pointer: /key_id, equals_result: /new_key_id}", "{status: [0]}")
        .replace("{status: [0], pointer: /key_id, equals_result: /old_key_id}", "{status: [3]}");
    assertEquals(VerifyCondition.status(List.of(3)), load(statusOnly).replay().verify().notAppliedWhen());
    ContractSet example = new ContractLoader().load(Path.of("src/test/resources/contracts-verify"));
    assertEquals(List.of(), example.warnings());
    assertEquals(List.of("/opt/keys/bin/show-active", "--json", "{{service}}"),
        example.find("rotate_host_key").orElseThrow().replay().verify().command());
  }

  @Test
  void anSshCheckIsACommandWithExitStatusesNotAUrlNorATool() throws Exception {
    int verified = line(SSH, "verified_when");
    int command = line(SSH, "command: [cat");
    assertEquals(List.of(line(SSH, "replay:") + ": replay.verify: required with attach_window: until_verified (how to check the "
        + "effect: command, verified_when)"), errors(SSH.substring(0, SSH.indexOf("  verify:")) + "fingerprint:\n  secret: [token]\n"));
    assertEquals(List.of(line(SSH, "verify:") + ": replay.verify.command: required (a read-only command's argv, e.g. [\"cat\", "
        + "\"/etc/app/{{service}}/active.json\"])", command + ": replay.verify.url: unknown field; known: command, every, "
        + "give_up_after, verified_when, not_applied_when"), errors(SSH.replace(
            "command: [cat, \"/etc/keys/{{service}}/active.json\", \"{{execution_id}}\"]", "url: http://127.0.0.1/active")));
    assertEquals(List.of(command + ": replay.verify.command[1]: placeholder {{servce}} is not a property of input_schema (nor execution_id)"),
        errors(SSH.replace("/etc/keys/{{service}}/", "/etc/keys/{{servce}}/")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.status: required (a list of exit statuses, e.g. [0])"),
        errors(SSH.replace("{status: [0], pointer: /key_id, equals_result: /new_key_id}", "{pointer: /key_id, equals_result: /new_key_id}")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.status[0]: '300' is not an exit status (0-255)"),
        errors(SSH.replace("{status: [0], pointer: /key_id, equals_result: /new", "{status: [300], pointer: /key_id, equals_result: /new")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.equals_argument: 'token' is in fingerprint.secret: its value is "
        + "sealed and never compared (nor shown on the record)"), errors(SSH.replace("equals_result: /new_key_id}", "equals_argument: token}")));
    String httpWithCommand = with("    method: GET\n    url: http://127.0.0.1:8766/v1/credentials/{{service}}/active",
        "    command: [cat, /active]\n    method: GET\n    url: http://127.0.0.1:8766/v1/credentials/{{service}}/active");
    assertEquals(List.of(line(httpWithCommand, "command: [cat") + ": replay.verify.command: unknown field; known: method, url, every, "
        + "give_up_after, verified_when, not_applied_when"), errors(httpWithCommand));
  }

  @Test
  void verifyAndVerifiedWindowGoWithUntilVerifiedOnly() throws Exception {
    assertEquals(List.of(line(ROTATE, "verified_window") + ": replay.verified_window: used only with attach_window: until_verified",
        line(ROTATE, "verify:") + ": replay.verify: used only with attach_window: until_verified"),
        errors(with("attach_window: until_verified", "attach_window: PT1H")));
    String noVerify = ROTATE.substring(0, ROTATE.indexOf("  verify:")) + "fingerprint:\n  ignore: [reason]\n  secret: [token]\n";
    assertEquals(List.of(line(noVerify, "replay:") + ": replay.verify: required with attach_window: until_verified (how to check the "
        + "effect: method, url, verified_when)"), errors(noVerify));
  }

  @Test
  void eachConditionNeedsExactlyOneExpectationWithItsPointer() throws Exception {
    int verified = line(ROTATE, "verified_when");
    assertEquals(List.of(verified + ": replay.verify.verified_when: pointer needs what its value must equal: one of equals_result, "
        + "equals, equals_argument"), errors(with("pointer: /key_id, equals_result: /new_key_id}", "pointer: /key_id}")));
    assertEquals(List.of(verified + ": replay.verify.verified_when: give one of equals_result, equals, equals_argument, not 2"),
        errors(with("equals_result: /new_key_id}", "equals_result: /new_key_id, equals: k}")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.equals_result: needs pointer (where in the verification answer "
        + "to look)"), errors(with("pointer: /key_id, equals_result: /new_key_id}", "equals_result: /new_key_id}")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.equals_argument: 'servce' is not a property of input_schema"),
        errors(with("equals_result: /new_key_id}", "equals_argument: servce}")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.equals_argument: 'token' is in fingerprint.secret: its value is "
        + "sealed and never compared (nor shown on the record)"), errors(with("equals_result: /new_key_id}", "equals_argument: token}")));
    assertEquals(List.of(line(ROTATE, "not_applied_when") + ": replay.verify.not_applied_when: is the same condition as verified_when: "
        + "an answer could not tell them apart"), errors(with("equals_result: /old_key_id", "equals_result: /new_key_id")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.pointer: 'key_id' is not a JSON Pointer (e.g. /key_id; in a name, "
        + "~ is written ~0 and / is written ~1)"), errors(with("pointer: /key_id, equals_result: /new", "pointer: key_id, equals_result: /new")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.status: required (a list of HTTP status codes, e.g. [200])"),
        errors(with("{status: [200], pointer: /key_id, equals_result: /new_key_id}", "{pointer: /key_id, equals_result: /new_key_id}")));
    assertEquals(List.of(verified + ": replay.verify.verified_when.equals: must be a string, number, boolean or null"),
        errors(with("equals_result: /new_key_id}", "equals: [1]}")));
  }

  @Test
  void theCheckIsARead() throws Exception {
    int method = line(ROTATE, "url: http://127.0.0.1:8766/v1/credentials/{{service}}/active") - 1;
    String post = ROTATE.replace("    method: GET\n    url: http://127.0.0.1:8766/v1/credentials/{{service}}/active",
        "    method: POST\n    url: http://127.0.0.1:8766/v1/credentials/{{service}}/active");
    assertEquals(List.of(method + ": replay.verify.method: 'POST' is not GET or HEAD (a verification must not change anything)"),
        errors(post));
    int url = method + 1;
    assertEquals(List.of(url + ": replay.verify.url: placeholder {{servce}} is not a property of input_schema (nor execution_id)"),
        errors(with("credentials/{{service}}/active", "credentials/{{servce}}/active")));
    assertEquals(List.of(url + ": replay.verify.url: must be an http:// or https:// URL"),
        errors(with("url: http://127.0.0.1:8766/v1/credentials/{{service}}/active", "url: ftp://h/active")));
  }

  @Test
  void theScheduleIsBounded() throws Exception {
    assertEquals(List.of(line(ROTATE, "every:") + ": replay.verify.every: is PT0.5S; at least PT1S (a verification reads someone "
        + "else's service on a schedule, not in a loop)"), errors(with("every: PT30S", "every: PT0.5S")));
    assertEquals(List.of(line(ROTATE, "give_up_after") + ": replay.verify.give_up_after: is PT10S, shorter than every (PT30S): no "
        + "check would run"), errors(with("give_up_after: P7D", "give_up_after: PT10S")));
    assertEquals(List.of(line(ROTATE, "verified_window") + ": replay.verified_window: '-PT1M' is negative (verified_window is zero or "
        + "more)"), errors(with("verified_window: PT10M", "verified_window: -PT1M")));
    String timeOnly = ROTATE.substring(0, ROTATE.indexOf("  verify:")).replace("  verified_window: PT10M\n", "")
        .replace("attach_window: until_verified", "attach_window: forever");
    assertEquals(List.of(line(timeOnly, "attach_window") + ": replay.attach_window: 'forever' is not an ISO-8601 duration (e.g. PT30S, "
        + "PT1H)"), errors(timeOnly));
    assertEquals(List.of(line(ROTATE, "every:") + ": replay.verify.evry: unknown field (did you mean 'every'?); known: method, url, "
        + "every, give_up_after, verified_when, not_applied_when"), errors(with("every: PT30S", "evry: PT30S")));
  }

  @Test
  void aCredentialGoesToAnArgumentChosenVerificationHostOnlyWithDynamicHost() throws Exception {
    String yaml = with("  idempotency_header: Idempotency-Key\n", "  idempotency_header: Idempotency-Key\n  credential: vault-rotator\n")
        .replace("url: http://127.0.0.1:8766/v1/credentials/{{service}}/active", "url: http://{{service}}.example/active");
    assertEquals(List.of(line(yaml, "url: http://{{service}}.example/active") + ": replay.verify.url: the URL's host comes from an "
        + "argument and the request carries credential vault-rotator: the agent would choose where the credential goes. Put the "
        + "host in the contract, or say dynamic_host: true if every host an agent may name is meant to get it"), errors(yaml));
  }
}
