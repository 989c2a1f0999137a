package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.journal.Journals;
import io.onceport.workflow.journal.JournalEntry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The seed's scenarios, written the way the workflow journals them, then investigated. */
@Timeout(60)
class InvestigateCommandTest {
  @TempDir Path data;
  String out;
  String err;
  int minute;

  int run(String... args) {
    CommandLine cl = OnceportCommand.commandLine();
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    cl.setOut(new PrintWriter(o, true));
    cl.setErr(new PrintWriter(e, true));
    int code = cl.execute(args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  void entry(Journals j, String exec, String fp, String transition, int attempt, Object... kv) {
    Map<String, Object> detail = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] != null) { // the workflow omits absent fields (no run id, no intent key)
        detail.put((String) kv[i], kv[i + 1]);
      }
    }
    j.activities().append(new JournalEntry(exec, fp, transition, attempt,
        String.format("2026-11-30T05:%02d:00Z", minute++), detail));
  }

  void call(Journals j, String exec, String fp, int n, boolean retry, String rpcId, String session, String run) {
    entry(j, exec, fp, "call", n, "retry", retry, "state", retry ? "completed" : "accepted",
        "jsonrpc_id", rpcId, "session", session, "run", run);
  }

  void completedExecution(Journals j, String exec, String fp, String session, String run, String rpcId) {
    entry(j, exec, fp, "accepted", 1, "tool", "create_ticket", "actor", "agent-a");
    call(j, exec, fp, 1, false, rpcId, session, run);
    entry(j, exec, fp, "authorized", 1, "rule", "allow", "by", "policy");
    entry(j, exec, fp, "dispatched", 1, "tool", "create_ticket", "channel", "http");
    entry(j, exec, fp, "outcome", 1, "outcome", "completed", "target_status", 201);
  }

  @Test
  void aRetryThatAttachedIsOneExecutionWithOneDispatch() throws Exception {
    try (Journals j = Journals.open(data, "w1")) {
      completedExecution(j, "act_1", "fp_1", "ses_1", "run_1", "41");
      entry(j, "act_1", "fp_1", "delivered", 1, "call", "call_1");
      call(j, "act_1", "fp_1", 2, true, "42", "ses_1", "run_1");
    }
    assertEquals(0, run("investigate", "act_1", "--data", data.toString()), err);
    assertTrue(out.contains("1. Did one agent process or several send the calls?\n"
        + "   one agent process: session ses_1 run run_1 (actor agent-a)\n"), out);
    assertTrue(out.contains("   authorized (rule allow), dispatched once\n"), out);
    assertTrue(out.contains("   yes: HTTP 201 (completed)\n"), out);
    assertTrue(out.contains("   call 42 attached to act_1 as a retry (no idempotency key, execution completed)\n"), out);
    assertTrue(out.endsWith("verdict: one execution, one dispatch; call 42 attached as a retry\n"), out);
  }

  @Test
  void aSecondSessionsIdenticalCallIsARetryFromAnotherSessionAsExecutionsShowLabelsIt() throws Exception {
    try (Journals j = Journals.open(data, "w1")) {
      completedExecution(j, "act_1", "fp_1", "mcp:first", null, "1");
      call(j, "act_1", "fp_1", 2, true, "1", "mcp:second", null);
      entry(j, "act_1", "fp_1", "delivered", 1, "call", "call_1");
    }
    assertEquals(0, run("investigate", "act_1", "--data", data.toString(), "--json"), err);
    JsonNode report = new ObjectMapper().readTree(out);
    assertEquals("2 distinct agent processes: session mcp:first; session mcp:second (actor agent-a)",
        report.get("answers").get("processes").asText());
    assertEquals("call 1 attached to act_1 as a retry from another session: mcp:second, the first call's was mcp:first "
        + "(a reconnected client, or another process of the same actor; no idempotency key, execution completed; no run id, "
        + "so the intent scope is the actor; send a run id (_meta onceport/run or header Onceport-Run) or an intent key to "
        + "keep separate agent runs apart)", report.get("answers").get("second_call").asText());
    assertEquals("one execution, one dispatch; call 1 attached as a retry (call 1 from session mcp:second, not the first "
        + "call's mcp:first: a reconnected client, or another process of the same actor; without a run id the intent scope "
        + "is the actor)", report.get("verdict").asText());
  }

  @Test
  void twoDistinctProcessesAreTwoExecutionsForOneFingerprint() throws Exception {
    try (Journals j = Journals.open(data, "w1")) {
      completedExecution(j, "act_1", "fp_same", "ses_a", "run_a", "7");
      completedExecution(j, "act_2", "fp_same", "ses_b", "run_b", "3");
    }
    assertEquals(0, run("investigate", "fp_same", "--data", data.toString(), "--json"), err);
    JsonNode report = new ObjectMapper().readTree(out);
    assertEquals("2 distinct agent processes: session ses_a run run_a; session ses_b run run_b (actor agent-a)",
        report.get("answers").get("processes").asText());
    assertEquals("new intent: 2 executions for these arguments (act_1, act_2), each sent on its own",
        report.get("answers").get("second_call").asText());
    assertEquals("2 executions, 2 dispatches from 2 distinct sessions (new intents, not retries)",
        report.get("verdict").asText());
    assertEquals(10, report.get("sequence").size());
  }

  @Test
  void completedButNotDeliveredIsNamedAsADeliveryFailure() throws Exception {
    try (Journals j = Journals.open(data, "w1")) {
      completedExecution(j, "act_1", "fp_1", "ses_1", "run_1", "41");
      entry(j, "act_1", "fp_1", "not_delivered", 1, "call", "call_1", "detail", "client disconnected");
    }
    assertEquals(0, run("investigate", "act_1", "--data", data.toString(), "--json"), err);
    JsonNode report = new ObjectMapper().readTree(out);
    assertEquals("yes: the result was not delivered to call call_1 (client disconnected) after the target completed",
        report.get("answers").get("delivery").asText());
    assertEquals("one execution, one dispatch; completed, result not delivered", report.get("verdict").asText());
  }

  @Test
  void anUnknownIntentIsAnError() {
    try (Journals j = Journals.open(data, "w1")) {
      entry(j, "act_1", "fp_1", "accepted", 1);
    }
    assertEquals(1, run("investigate", "act_404", "--data", data.toString()));
    assertEquals("onceport: no journal entries for act_404 in " + data.resolve("journal/activity") + " (add --temporal HOST:PORT to search Temporal too)\n", err);
  }
}
