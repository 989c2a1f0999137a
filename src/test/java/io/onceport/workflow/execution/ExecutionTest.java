package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.Contracts;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import io.onceport.workflow.journal.JournaledSends;
import io.temporal.common.converter.DataConverter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The execution state object on its own, outside a workflow (it issues no command and takes its
 * clock): the version counter, the journal queue and the record it builds.
 */
@Timeout(10)
class ExecutionTest {
  private static final long START = Instant.parse("2026-12-01T12:00:00Z").toEpochMilli();
  private final AtomicLong clock = new AtomicLong(START);

  private static ToolContract contract() {
    return new ToolContract("create_release", "test tool", Contracts.RELEASE_SCHEMA, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://127.0.0.1:1/v1/releases", null, Map.of(), "Idempotency-Key", null, 5_000),
        null, new ReplaySpec(ReplayClass.IDEMPOTENCY_KEY, Duration.ofMinutes(5), null), List.of(), List.of());
  }

  private Execution accepted() {
    ExecutionInput input = ExecutionInput.of("hmac-sha256:ab", "create_release", "agent:deployer", "release",
        null, "mcp-session-1", "http://127.0.0.1:1/v1/releases", "POST", contract(),
        "{\"service\":\"catalog\",\"version\":\"1.4.2\"}", null);
    return new Execution(input, "act_test", START, "wf-1", "run-1", clock::get, LoggerFactory.getLogger(ExecutionTest.class));
  }

  private static AttachRequest call(String callId) {
    return new AttachRequest(callId, "hmac-sha256:ab", "1", "mcp-session-1", null, null, "2025-11-25", "test", "127.0.0.1",
        "fe-1", Instant.ofEpochMilli(START).toString(), 0);
  }

  private static void authorize(Execution e) {
    e.authorization(new ExecutionRecord.Authorization("authorized", "allowed", e.now(), "policy", "", null),
        ExecutionState.AUTHORIZED, "authorized (allowed)", JournalTransition.AUTHORIZED, Map.of("rule", "allowed"));
  }

  private static List<String> words(List<JournalEntry> entries) {
    List<String> out = new ArrayList<>();
    for (JournalEntry e : entries) {
      out.add(e.transition());
    }
    return out;
  }

  @Test
  void everyChangeACallerCanSeeMovesTheVersionExactlyOnce() {
    Execution e = accepted();
    assertEquals(0, e.version(), "accepted is version 0");
    e.attached(call("c1"));
    assertEquals(1, e.version());
    authorize(e);
    assertEquals(2, e.version());
    int attempt = e.sendStarted();
    assertEquals(3, e.version());
    e.sends().ended(clock.get());
    e.sendUncertain(attempt, e.now(), "connection reset after the request was written", false);
    assertEquals(4, e.version(), "an unknown outcome is a change without a state");
    e.statusQueryStarted();
    e.statusQueryStarted();
    assertEquals(5, e.version(), "verifying is entered once, however many queries run");
    e.statusChecked("completed", 201, "found");
    assertEquals(6, e.version());
    e.result(DispatchResult.http(201, Map.of(), "{\"id\":\"rel_1\"}", false, 3), "res_1");
    e.settled(true, "the status query found it", true);
    assertEquals(7, e.version());
    e.deliveryReported(new DeliveryReport("c1", true, e.now(), null));
    assertEquals(8, e.version());

    ExecutionRecord r = e.record();
    assertEquals(8, r.version());
    assertEquals(ExecutionState.COMPLETED, r.state());
    assertEquals(Outcome.COMPLETED, r.outcome());
    assertEquals(Delivery.DELIVERED, r.delivery());
    assertEquals("completed_result_delivered", r.view());
    assertEquals(List.of("accepted", "authorized", "dispatched", "verifying", "completed"),
        r.transitions().stream().map(ExecutionRecord.Transition::state).toList());
    assertEquals(ExecutionRecord.Send.OUTCOME_UNKNOWN, r.sends().get(0).observed());
    assertEquals("2026-12-01T12:00:00Z", r.authorizedAt(), "authorized when the ladder allowed it");
    assertEquals("wf-1", r.workflowId());
    assertEquals("res_1", r.resultReference());
    assertEquals(201, r.targetStatus());
  }

  @Test
  void journalEntriesAreWordsOfTheSharedVocabularyInTheOrderTheyHappened() {
    Execution e = accepted();
    e.attached(call("c1"));
    authorize(e);
    int attempt = e.sendStarted();
    e.sendUncertain(attempt, e.now(), "reset", true);
    e.statusQueryStarted();
    e.statusChecked("not_executed", null, "no such request");
    e.failed(Outcome.NOT_EXECUTED, "not dispatched");
    e.deliveryReported(new DeliveryReport("c1", false, e.now(), "client went away"));

    assertTrue(!e.journal().isEmpty());
    List<JournalEntry> batch = e.journal().drain();
    assertFalse(!e.journal().isEmpty());
    assertEquals(List.of("accepted", "call", "authorized", "outcome_unknown", "status_query", "outcome", "not_delivered"), words(batch));
    for (JournalEntry entry : batch) {
      assertEquals("create_release", entry.detail().get("tool"), entry.transition() + " carries the tool for metrics");
      assertTrue(JournalTransition.fromWireName(entry.transition()) != null, entry.transition());
    }
    assertEquals("worker_lost", batch.get(3).detail().get("observed"));
  }

  @Test
  void aBatchThatDidNotBecomeDurableGoesBackBeforeWhatWasQueuedSince() {
    Execution e = accepted();
    List<JournalEntry> carried = e.journal().drain();
    e.attached(call("c1"));
    e.journal().requeue(carried);
    assertEquals(List.of("accepted", "call"), words(e.journal().drain()));
  }

  @Test
  void aCancellationAfterAnUncertainSendIsRefusedOnTheRecordAndInTheJournal() {
    Execution e = accepted();
    authorize(e);
    assertTrue(e.cancellable());
    int attempt = e.sendStarted();
    e.sendUncertain(attempt, e.now(), "reset", false);
    e.provedNotActed("status query proved the action did not run");
    assertEquals(ExecutionState.AUTHORIZED, e.state());
    assertTrue(e.mayCancel(), "after proof nothing sent may have acted");
    e.sendStarted();
    assertFalse(e.cancellable());
    e.journal().drain();
    long before = e.version();
    e.cancellationRefused("operator:ana: wrong target", "operator:ana");
    assertEquals(before + 1, e.version());
    assertEquals(List.of("cancel_refused"), words(e.journal().drain()));
    assertTrue(e.record().cancellation().startsWith("cancellation requested by operator:ana: wrong target after dispatch"),
        e.record().cancellation());
  }

  @Test
  void callsBeyondTheRecordedLimitAreCountedAndStillJournalled() {
    Execution e = accepted();
    List<AttachRequest> many = new ArrayList<>();
    for (int i = 0; i < CallLog.MAX_RECORDED_CALLS + 3; i++) {
      many.add(call("c" + i));
    }
    e.coalesced(many);
    ExecutionRecord r = e.record();
    assertEquals(1, r.version(), "coalesced calls are one change");
    assertEquals(CallLog.MAX_RECORDED_CALLS, r.calls().size());
    assertEquals("accepted (3 further calls not itemized)", r.message());
    List<JournalEntry> batch = e.journal().drain();
    assertEquals(CallLog.MAX_RECORDED_CALLS + 4, batch.size());
    assertEquals(CallLog.MAX_RECORDED_CALLS + 3, batch.get(batch.size() - 1).attempt());
  }

  @Test
  void aRefusedDecisionChangesNothingButTheEvidence() {
    Execution e = accepted();
    e.authorization(new ExecutionRecord.Authorization("awaiting_approval", "approve_each_use", e.now(), "policy", "",
        "2026-12-01T12:01:00Z"), ExecutionState.AWAITING_APPROVAL, "awaiting", JournalTransition.AWAITING_APPROVAL, Map.of());
    e.journal().drain();
    e.decisionRefused("approval", "unsigned", Map.of("kind", "approval", "refusal", "unsigned"));
    e.decisionRefused("approval", "replayed", Map.of("kind", "approval", "refusal", "replayed"));
    assertEquals(ExecutionState.AWAITING_APPROVAL, e.state());
    List<JournalEntry> batch = e.journal().drain();
    assertEquals(List.of("decision_refused", "decision_refused"), words(batch));
    assertEquals(List.of(1, 2), batch.stream().map(JournalEntry::attempt).toList(), "each refusal is its own append");
    assertEquals(3, e.version());
  }

  @Test
  void theSummaryShowsToolArgumentsAnswerAndDelivery() {
    Execution e = accepted();
    assertFalse(ExecutionVisibility.memoDue(e.state()));
    authorize(e);
    e.sendStarted();
    e.result(DispatchResult.http(201, Map.of(), "{}", false, 3), null);
    e.settled(true, "the target answered HTTP 201", false);
    assertTrue(ExecutionVisibility.memoDue(e.state()));
    assertEquals("create_release service=catalog version=1.4.2 → 201, pending", ExecutionVisibility.summary(e.record()));
    clock.addAndGet(1_000);
    e.deliveryReported(new DeliveryReport("c9", true, e.now(), null));
    assertEquals("create_release service=catalog version=1.4.2 → 201, delivered", ExecutionVisibility.summary(e.record()));
  }

  @Test
  void withTheRequestSummaryPublishedAtStartOnlyAPersonsWaitOrAnUnhappyEndRewritesTheMemo() {
    Execution e = accepted();
    assertEquals("create_release service=catalog version=1.4.2",
        ExecutionSearchAttributes.requestSummary(e.record().tool(), e.record().arguments()));
    assertFalse(ExecutionVisibility.memoDueAfterStartMemo(e.record(), false));
    authorize(e);
    e.sendStarted();
    e.result(DispatchResult.http(201, Map.of(), "{}", false, 3), null);
    e.settled(true, "the target answered HTTP 201", false);
    assertFalse(ExecutionVisibility.memoDueAfterStartMemo(e.record(), false), "its delivery report comes next");
    assertTrue(ExecutionVisibility.memoDueAfterStartMemo(e.record(), true), "closing with the delivery still pending");
    e.deliveryReported(new DeliveryReport("c9", true, e.now(), null));
    assertFalse(ExecutionVisibility.memoDueAfterStartMemo(e.record(), true), "completed and delivered: the state label says it");

    Execution failed = accepted();
    authorize(failed);
    failed.sendStarted();
    failed.result(DispatchResult.http(422, Map.of(), "{}", false, 3), null);
    failed.settled(false, "the target answered HTTP 422", false);
    failed.deliveryReported(new DeliveryReport("c9", true, failed.now(), null));
    assertEquals(ExecutionState.FAILED, failed.state());
    assertTrue(ExecutionVisibility.memoDueAfterStartMemo(failed.record(), false), "a failure shows its answer");

    Execution undelivered = accepted();
    authorize(undelivered);
    undelivered.sendStarted();
    undelivered.result(DispatchResult.http(201, Map.of(), "{}", false, 3), null);
    undelivered.settled(true, "the target answered HTTP 201", false);
    undelivered.deliveryReported(new DeliveryReport("c9", false, undelivered.now(), "the caller was gone"));
    assertTrue(ExecutionVisibility.memoDueAfterStartMemo(undelivered.record(), false), "not delivered");
  }

  @Test
  void theStateRoundTripsThroughTheDataConverterAndCarriesOnAlike() {
    Execution e = accepted();
    e.attached(call("c1"));
    authorize(e);
    int attempt = e.sendStarted();
    e.sends().ended(clock.get());
    e.sendUncertain(attempt, e.now(), "reset", false);
    e.statusQueryStarted();
    e.statusChecked("running", null, "still running");
    e.deliveryReported(new DeliveryReport("c1", false, e.now(), "client went away"));

    DataConverter converter = DataConverter.getDefaultInstance();
    Execution copy = converter.fromPayload(converter.toPayload(e).orElseThrow(), Execution.class, Execution.class)
        .resume(clock::get, LoggerFactory.getLogger(ExecutionTest.class));
    assertEquals(e.record(), copy.record());
    assertEquals(e.situation(false), copy.situation(false), "the policy's counters travel too");
    assertEquals(e.journal().drain(), copy.journal().drain());

    clock.addAndGet(5_000);
    for (Execution x : List.of(e, copy)) {
      x.statusChecked("completed", 201, "found");
      x.result(DispatchResult.http(201, Map.of(), "{}", false, 3), "res_2");
      x.settled(true, "the status query found it", true);
    }
    assertEquals(e.record(), copy.record());
    assertEquals(e.journal().drain(), copy.journal().drain());
    assertEquals(9, copy.version());
  }

  private static JournaledSends provenSend() {
    return new JournaledSends(List.of(new JournaledSends.Send(1, "run-0", "activity/w1", "2026-12-01T11:00:00Z", "completed", 201,
        "res_1")), 1, List.of("run-0", "run-1"));
  }

  @Test
  void aResetRunThatReadTheJournalBeforeSendingHasTheEarlierSendsOnItsRecord() {
    Execution e = accepted();
    e.historyStartedWith("run-0");
    e.journalRead(provenSend());
    ExecutionRecord r = e.record();
    assertEquals("run-0", r.reset().originalRunId());
    assertEquals(1, r.reset().number());
    assertEquals(1, r.sends().size(), "the journal's send is the record's first send");
    ExecutionRecord.Send first = r.sends().get(0);
    assertEquals(ExecutionRecord.Send.SENT_BEFORE, first.observed());
    assertEquals(201, first.status());
    assertEquals("sent before this run: attempt 1 by run run-0 at 2026-12-01T11:00:00Z (completed, 201)", first.detail());
    assertEquals(Outcome.UNKNOWN, r.outcome());
    assertEquals("2026-12-01T11:00:00Z", r.dispatchedAt());
    assertFalse(e.cancellable(), "a send the journal proves cannot be cancelled");
    assertEquals(2, e.sends().begin(), "the run's next send is a new attempt under the same key");
    assertTrue(r.transitions().stream().anyMatch(t -> t.state().equals("reset")
        && t.detail().equals("this run (run-1) is reset 1 of the execution, whose history began with run run-0; the journal proves"
            + " 1 send: attempt 1 by run run-0 at 2026-12-01T11:00:00Z (completed, 201)")), r.transitions().toString());
  }

  @Test
  void aResetRunThatHadSentItselfKeepsItsOwnSendsAndOnlyNotesTheJournals() {
    Execution e = accepted();
    e.historyStartedWith("run-0");
    authorize(e);
    int attempt = e.sendStarted();
    e.sendAnswered(attempt, e.now(), 201, "res_2");
    e.journalRead(provenSend());
    assertEquals(1, e.record().sends().size());
    assertEquals(ExecutionRecord.Send.ANSWERED, e.record().sends().get(0).observed());
    assertEquals(1, e.record().reset().sends().size());
  }

  @Test
  void aRefusalAfterJournaledSendsIsNoRejectionAndNeverSaysNothingWasDispatched() {
    Execution e = accepted();
    e.historyStartedWith("run-0");
    e.journalRead(provenSend());
    e.journal().drain();
    e.refusedAfterSends(new ExecutionRecord.Authorization("rejected", "vault_locked", e.now(), "policy", "locked", null),
        "authorization refused (vault_locked): locked; nothing is sent now, but the journal proves an earlier run's send:"
            + " the outcome is unknown", Map.of("rule", "vault_locked", "by", "policy", "reason", "locked"));
    ExecutionRecord r = e.record();
    assertTrue(e.refusedAfterJournaledSends());
    assertEquals(ExecutionState.ACCEPTED, r.state(), "no rejected state: an operator decides next");
    assertEquals(Outcome.UNKNOWN, r.outcome());
    assertFalse(r.message().contains("nothing was dispatched"));
    List<JournalEntry> queued = e.journal().drain();
    assertEquals(List.of("rejected"), words(queued));
    assertEquals(1, queued.get(0).detail().get("sends_before"));
  }

  @Test
  void aRunThatIsNoResetHasNoResetOnItsRecord() {
    assertEquals(null, accepted().record().reset());
  }
}
