package io.onceport.app.investigate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.journal.JournalReader.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Resets and each run's sends as the journal tells them, and the verdict that counts them. */
@Timeout(10)
class ResetReportTest {
  private final List<Record> journal = new ArrayList<>();

  private void entry(String transition, int attempt, Map<String, Object> detail) {
    journal.add(new Record("activity/w1", journal.size() + 1, "2026-12-06T12:00:0" + journal.size() + "Z", "act_1", "hmac-sha256:f",
        transition, attempt, "2026-12-06T12:00:0" + journal.size() + "Z", detail));
  }

  private void completedCall() {
    entry("accepted", 1, Map.of("actor", "agent:a", "tool", "send_notification"));
    entry("call", 1, Map.of("session", "s1", "retry", false, "jsonrpc_id", "1"));
    entry("authorized", 1, Map.of("rule", "allowed"));
    entry("dispatched", 1, Map.of("run_id", "R1"));
    entry("outcome", 1, Map.of("outcome", "completed", "target_status", 201));
  }

  @Test
  void aResetThatSentNothingAgainIsOneDispatchAndSaysSo() {
    completedCall();
    entry("reset", 1, Map.of("run_id", "R2", "original_run_id", "R1", "sends_before", 1));
    entry("sent_before", 1, Map.of("run_id", "R2"));
    ResetReport.Execution x = ResetReport.of("act_1", journal);
    assertEquals(1, x.resets());
    assertEquals(0, x.sendsAfterReset());
    assertEquals("reset 1 time; run R1 (before any reset) sent attempt 1; run R2 (reset 1) sent nothing (attempt 1 refused: sent before)",
        ResetReport.describe(x));
    Investigation.Report report = Investigation.investigate("act_1", journal, List.of());
    assertEquals("one execution, one dispatch (reset 1 time, the send was not repeated)", report.verdict());
    assertTrue(report.answers().get(5).answer().startsWith("yes: reset 1 time; run R1"), report.answers().get(5).answer());
  }

  @Test
  void sendsByResetRunsAreCountedAndNamedNeverOneDispatch() {
    completedCall();
    entry("reset", 1, Map.of("run_id", "R2", "original_run_id", "R1"));
    entry("dispatched", 2, Map.of("run_id", "R2"));
    entry("reset", 2, Map.of("run_id", "R3", "original_run_id", "R1"));
    entry("dispatched", 3, Map.of("run_id", "R3"));
    ResetReport.Execution x = ResetReport.of("act_1", journal);
    assertEquals(2, x.sendsAfterReset());
    assertEquals("one execution, 3 dispatches (reset 2 times; 2 of them by reset runs, under the same key)",
        Investigation.investigate("act_1", journal, List.of()).verdict());
    assertEquals(List.of(x), ResetReport.resets(journal));
  }

  @Test
  void aRefusedResetRunIsNotNeverDispatched() {
    completedCall();
    entry("reset", 1, Map.of("run_id", "R2", "original_run_id", "R1"));
    entry("rejected", 1, Map.of("rule", "vault_locked", "reason", "locked", "sends_before", 1));
    String dispatch = Investigation.investigate("act_1", journal, List.of()).answers().get(1).answer();
    assertEquals("dispatched by an earlier run, then a reset run's authorization was refused (rule vault_locked: locked),"
        + " dispatched once", dispatch);
  }

  @Test
  void withoutAResetNothingChanges() {
    completedCall();
    assertEquals(List.of(), ResetReport.resets(journal));
    Investigation.Report report = Investigation.investigate("act_1", journal, List.of());
    assertEquals("one execution, one dispatch", report.verdict());
    assertEquals("no reset recorded", report.answers().get(5).answer());
  }
}
