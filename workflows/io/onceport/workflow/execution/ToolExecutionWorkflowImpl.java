package io.onceport.workflow.execution;

import static io.onceport.workflow.execution.ExecutionSearchAttributes.INTENT_KEY_MISMATCH_PREFIX;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.journal.JournalActivities;
import io.onceport.workflow.operator.OperatorActivities;
import io.onceport.workflow.replay.ReplayPolicy;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.slf4j.Logger;

/**
 * The execution state machine. Deterministic: time, randomness, waiting and logging go through
 * {@code Workflow.*} only; everything that touches the world is an activity.
 *
 * <p><b>One state object.</b> Everything the run knows is the {@link Execution}: its transitions,
 * its version counter, its evidence and the record built from it. The parts of the main method are
 * small collaborators acting on it: the {@link AuthorizationLadder}, the {@link Dispatcher} (one
 * policy step at a time), {@link OperatorDecisions} (signed statements), and the {@link MainLoop},
 * which alone writes the journal and, through {@link ExecutionVisibility}, the search attributes and
 * memo derived from the state. This class holds the activity options and the handlers.
 *
 * <p><b>One policy decides.</b> Every send is a {@link ReplayPolicy} step: the dispatch
 * activities run with {@code maximumAttempts = 1}, channels report facts, and the dispatcher
 * carries the policy's decision out. Each send is on the record ({@link ExecutionRecord.Send}) and
 * in the journal.
 *
 * <p><b>Handlers only change state.</b> Signal and update handlers record evidence, put decisions
 * in the {@link Inbox} and queue journal entries; journal appends, timers, activities and
 * search-attribute/memo upserts come from the main method only, in one deterministic order ({@link
 * MainLoop#waitUntil}). A handler that issues commands can replay in another order than it ran (a
 * signal and an update handled in one workflow task) and stick the workflow with a {@code
 * NonDeterministicException}. Callers waiting in {@code attach}/{@code awaitChange} register a
 * deadline ({@link CallerDeadlines}); the main method's single timer serves the earliest one.
 *
 * <p><b>Cost.</b> Queued journal entries travel with the next send (the dispatch activity makes
 * them durable with its {@code dispatched} entry, before the first byte) or are written by one
 * local activity per workflow task; search attributes and the memo are written when the view an
 * operator sees changed, at most once per workflow task.
 *
 * <p><b>Operator decisions are signed.</b> An approval, a
 * resolution and a forwarded session decision take effect only after the main method verified the
 * operator's statement ({@link OperatorActivities}, a local activity: the verdict is in history and
 * replays). A refused decision changes nothing; the update fails with the reason and the refusal is
 * journalled ({@code decision_refused}) with what was presented.
 *
 * <p><b>No compatibility branches.</b> The workflow is {@code PINNED} to the Worker Deployment
 * version that started it (docs/production.md, "Upgrades"): an execution finishes on the build that
 * started it, so this code never replays another build's history and carries no {@code
 * Workflow.getVersion} branch for one. The {@link ResetPoint} markers are not such branches: they
 * tell a reset run from the first run.
 *
 * <p>Long because: it holds every handler of the workflow interface (each a few lines of state) and
 * the activity options, which style keeps in one place; the steps themselves are the collaborators'.
 */
public final class ToolExecutionWorkflowImpl implements ToolExecutionWorkflow {

  private static final LocalActivityOptions JOURNAL_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).setInitialInterval(Duration.ofMillis(200)).build())
          .build();

  /** Verification reads the operator registry on the worker: local, fast, retried a little. */
  private static final LocalActivityOptions VERIFY_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).setInitialInterval(Duration.ofMillis(200)).build())
          .build();

  /** The ladder as a local activity: it reads local state only, so no task-queue trip. */
  private static final LocalActivityOptions LOCAL_AUTHORIZATION_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
          .build();

  /**
   * Every send, whatever the class: one attempt. A lost worker is a fact (heartbeat or
   * start-to-close timeout) for the policy, never a Temporal-level re-send.
   */
  private static final ActivityOptions SEND_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setHeartbeatTimeout(Duration.ofSeconds(15))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  /** Status queries: one attempt each; a failed query is a "still unknown" fact the policy polls on. */
  private static final ActivityOptions STATUS_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(60))
          .setHeartbeatTimeout(Duration.ofSeconds(15))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  /**
   * Verification checks ({@code replay.verify}): one attempt each, like a status query; a failed
   * check is "not yet known", and the next one comes on the contract's schedule, not Temporal's.
   */
  private static final ActivityOptions CHECK_OPTIONS = STATUS_OPTIONS;

  private final Logger log = Workflow.getLogger(ToolExecutionWorkflowImpl.class);
  private final ExecutionInput input;
  private final Random random;
  private final long acceptedMillis;
  private final Execution execution;
  private final Inbox inbox = new Inbox();
  private final CallerDeadlines callers = new CallerDeadlines();
  private final ExecutionVisibility visibility = new ExecutionVisibility();
  /** Past the tail (or window): new attaches are refused, the run closes after the retry grace. */
  private boolean closing;

  @WorkflowInit
  public ToolExecutionWorkflowImpl(ExecutionInput input) {
    this.input = input;
    this.random = Workflow.newRandom();
    long now = Workflow.currentTimeMillis();
    // A front end that chose the id published it at start; earlier ones leave it to the run.
    boolean chosen = Ids.isExecutionId(input.executionId());
    String executionId = chosen ? input.executionId() : Ids.executionId(now, random);
    if (chosen) {
      visibility.publishedAtStart(ExecutionSearchAttributes.STATE_AT_START);
      // Front ends since this code also publish the request summary as the memo at start.
      visibility.memoPublishedAtStart((String) Workflow.getMemo(ExecutionSearchAttributes.MEMO_SUMMARY, String.class));
    }
    this.acceptedMillis = now;
    // Only state: the first journal entry is written with the first send (or the first journal write).
    this.execution = new Execution(input, executionId, now, Workflow.getInfo().getWorkflowId(), Workflow.getInfo().getRunId(),
        Workflow::currentTimeMillis, log);
    execution.historyStartedWith(Workflow.getInfo().getOriginalExecutionRunId());
  }

  @Override
  public ExecutionRecord run(ExecutionInput ignored) {
    // Every activity carries a summary line: the Temporal UI's timeline reads as the call's story (CallStory).
    AuthorizationActivities authorization = Workflow.newLocalActivityStub(AuthorizationActivities.class,
        LocalActivityOptions.newBuilder(LOCAL_AUTHORIZATION_OPTIONS).setSummary(CallStory.authorization(input)).build());
    OperatorActivities operators = Workflow.newLocalActivityStub(OperatorActivities.class,
        LocalActivityOptions.newBuilder(VERIFY_OPTIONS).setSummary(CallStory.verification(input)).build());
    MainLoop loop = new MainLoop(execution, visibility, callers, Workflow.newLocalActivityStub(JournalActivities.class, JOURNAL_OPTIONS));
    OperatorDecisions decisions = new OperatorDecisions(execution, operators, log);
    loop.resetPoint(); // a reset run reads the journal at its first step after the reset point
    Dispatcher dispatcher = null;
    boolean authorized = new AuthorizationLadder(execution, inbox, loop, authorization, decisions).authorize();
    if (authorized || execution.refusedAfterJournaledSends()) {
      dispatcher = new Dispatcher(execution, inbox, loop, decisions, random, sendOptions(), STATUS_OPTIONS, visibility.story());
      dispatcher.execute(authorized);
      recordInBandDelivery(dispatcher);
      if (input.contract().replay().untilVerified()) {
        keepUntilVerified(loop, dispatcher, decisions);
      }
    }
    awaitDeliveryOrWindow(loop);
    visibility.closing();
    // Handlers still waiting (a caller's attach) finish before the run closes; entries they queued are written.
    loop.waitUntil(Long.MAX_VALUE, () -> Workflow.isEveryHandlerFinished() && execution.journal().isEmpty());
    return execution.record();
  }

  /** The send's start-to-close: the contract's request timeout (5 minutes without one) and 30 s to report. */
  private ActivityOptions sendOptions() {
    long timeout = input.contract().requestTimeoutMillis();
    if (timeout <= 0) {
      timeout = Duration.ofMinutes(5).toMillis();
    }
    return ActivityOptions.newBuilder(SEND_OPTIONS).setStartToCloseTimeout(Duration.ofMillis(timeout).plusSeconds(30)).build();
  }

  /**
   * A result its send handed to the caller in band ({@link InBandAnswer}) arrives with its delivery
   * known, so a delivered one closes the run in this workflow task.
   */
  private void recordInBandDelivery(Dispatcher dispatcher) {
    DeliveryReport inBand = dispatcher.handedOver();
    if (inBand != null) {
      execution.deliveryReported(inBand, dispatcher.handedOverJournaled());
    }
  }

  /**
   * {@code attach_window: until_verified}: a completed execution keeps its identity (the run stays
   * open, identical calls attach and get the stored result) until its effect is verified, by a check
   * or an operator ({@link Verifier}). Found absent, the replay policy's step is carried out (a send
   * under the same key where the class allows it, else a review) and a settle after a new send is
   * verified again; an operator's resolution of that review is final. Only contracts with {@code
   * verify} take this path, and their executions exist only since it: histories recorded before it
   * replay unchanged, so no version marker is needed.
   */
  private void keepUntilVerified(MainLoop loop, Dispatcher dispatcher, OperatorDecisions decisions) {
    DispatchActivities checks = Workflow.newActivityStub(DispatchActivities.class, CHECK_OPTIONS);
    Verifier verifier = new Verifier(execution, inbox, loop, decisions, checks);
    while (execution.state() == ExecutionState.COMPLETED) {
      if (verifier.run() == Verifier.Ending.VERIFIED) {
        return;
      }
      int sends = execution.sends().size();
      dispatcher.afterNotApplied(verifier.notApplied(), verifier.notAppliedDetail());
      if (execution.sends().size() == sends) {
        return; // settled by an operator's resolution, not by a new send: nothing new to verify
      }
    }
  }

  /**
   * Stays attachable: until the result was delivered or the contract's attach window passed, then
   * for the late-arrival tail after a delivery; an execution kept {@code until_verified} and
   * verified, until its verified window passed instead (whether or not its result was delivered: a
   * verified action is not repeated within it). Then the run is closing: it refuses new attaches and
   * closes once the repeated attempts of those it took can no longer come.
   */
  private void awaitDeliveryOrWindow(MainLoop loop) {
    long verifiedUntil = execution.verification().verified() ? execution.verification().verifiedUntilMillis() : 0;
    if (verifiedUntil > 0) {
      execution.attachWindowOpened(verifiedUntil);
      loop.waitUntil(verifiedUntil, () -> false);
    } else {
      awaitDeliveryAndTail(loop);
    }
    // No new attaches from here; the repeated attempts of those accepted may still come.
    closing = true;
    long retriesDone = execution.lastAttachMillis() + ATTACH_RETRY_GRACE.toMillis();
    if (retriesDone > Workflow.currentTimeMillis()) {
      loop.waitUntil(retriesDone, () -> false);
    }
    execution.attachWindowClosed();
  }

  /** Until the result was delivered or the attach window passed; after a delivery, the late-arrival tail. */
  private void awaitDeliveryAndTail(MainLoop loop) {
    long until = Workflow.currentTimeMillis() + input.contract().replay().attachWindow().toMillis();
    execution.attachWindowOpened(until);
    ExecutionState state = execution.state();
    if (state == ExecutionState.REJECTED || state == ExecutionState.CANCELLED) {
      // A retry within the window gets the same refusal instead of a fresh approval path.
      loop.waitUntil(until, () -> false);
    } else {
      loop.waitUntil(until, () -> execution.delivery() == Delivery.DELIVERED);
    }
    if (execution.delivery() == Delivery.DELIVERED) {
      // The late-arrival tail: identical calls keep meeting this execution (and are told so).
      long tail = Workflow.currentTimeMillis() + input.contract().replay().dedupeAfterDelivery().toMillis();
      execution.lateArrivalTail(tail);
      loop.waitUntil(tail, () -> false);
    }
  }

  // ---- handlers: state only ----

  @Override
  public ExecutionRecord record() {
    return execution.record();
  }

  @Override
  public void validateAttach(AttachRequest request) {
    if (closing) {
      throw ApplicationFailure.newNonRetryableFailure("execution " + execution.executionId() + " no longer takes calls"
          + " (its attach window or late-arrival tail ended); an identical call is a new intent", ErrorTypes.RUN_CLOSING);
    }
    if (!input.fingerprint().equals(request.fingerprint())) {
      throw ApplicationFailure.newNonRetryableFailure(
          INTENT_KEY_MISMATCH_PREFIX + "intent key " + request.intentKey() + " was already used by execution "
              + execution.executionId() + " for a different request; use a new key for a new intent",
          ErrorTypes.INTENT_KEY_MISMATCH);
    }
  }

  /**
   * Records the call and answers as soon as there is something to say: settled, or waiting for an
   * operator (so an agent learns within seconds that its session awaits authorization), or when
   * the caller's wait is over.
   */
  @Override
  public ExecutionRecord attach(AttachRequest request) {
    execution.attached(request);
    if (request.untilSent()) {
      // The first step is decided within the task that took the call (the ladder is a local activity).
      Workflow.await(() -> execution.hasAnswer() || execution.firstStepDecided());
    } else if (request.waitMillis() > 0) {
      callers.await(request.waitMillis(), execution::hasAnswer);
    }
    return execution.record();
  }

  @Override
  public ExecutionRecord awaitChange(long afterVersion, long waitMillis) {
    if (waitMillis > 0 && execution.version() <= afterVersion) {
      callers.await(waitMillis, () -> execution.version() > afterVersion);
    }
    return execution.record();
  }

  @Override
  public void reportDelivery(DeliveryReport report) {
    execution.deliveryReported(report);
  }

  @Override
  public void reportDeliveries(List<DeliveryReport> reports) {
    for (DeliveryReport report : reports) {
      execution.deliveryReported(report);
    }
  }

  @Override
  public void recordCalls(List<AttachRequest> requests) {
    execution.coalesced(requests);
  }

  @Override
  public void validateResolve(Resolution resolution) {
    ExecutionState current = execution.state();
    if (current != ExecutionState.NEEDS_REVIEW) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + execution.executionId() + " is " + current.wireName() + ", not needs_review; nothing to resolve",
          ErrorTypes.INVALID_TRANSITION);
    }
    if (execution.verification().givenUp()) {
      throw ApplicationFailure.newNonRetryableFailure("execution " + execution.executionId() + " completed and waits for a "
          + "verdict on its effect, not a resolution: onceport executions verify " + execution.executionId()
          + " --verified|--not-applied --reason …", ErrorTypes.INVALID_TRANSITION);
    }
    if (inbox.resolutionWaiting()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "a resolution of execution " + execution.executionId() + " is being decided; try again when it is",
          ErrorTypes.INVALID_TRANSITION);
    }
  }

  @Override
  public ExecutionRecord resolve(Resolution decided) {
    Inbox.Presented presented = inbox.presentResolution(decided);
    // Done when the main method decided on it, or the review ended otherwise.
    Workflow.await(() -> presented.done() || execution.state() != ExecutionState.NEEDS_REVIEW);
    throwIfRefused(presented);
    Workflow.await(() -> execution.state() != ExecutionState.NEEDS_REVIEW);
    return execution.record();
  }

  @Override
  public void validateVerify(VerificationDecision decision) {
    if (!input.contract().replay().untilVerified()) {
      throw ApplicationFailure.newNonRetryableFailure("execution " + execution.executionId() + " is not kept until verified "
          + "(its contract has no replay.verify); nothing to verify", ErrorTypes.INVALID_TRANSITION);
    }
    VerificationLog v = execution.verification();
    boolean open = v.pending() || (v.givenUp() && execution.state() == ExecutionState.NEEDS_REVIEW);
    if (!open) {
      throw ApplicationFailure.newNonRetryableFailure("execution " + execution.executionId() + " is " + execution.record().view()
          + "; its verification is not waiting for a verdict", ErrorTypes.INVALID_TRANSITION);
    }
    if (inbox.verificationWaiting()) {
      throw ApplicationFailure.newNonRetryableFailure("a verdict on execution " + execution.executionId()
          + " is being decided; try again when it is", ErrorTypes.INVALID_TRANSITION);
    }
  }

  @Override
  public ExecutionRecord verify(VerificationDecision decision) {
    Inbox.Presented presented = inbox.presentVerification(decision);
    Workflow.await(() -> presented.done() || !(execution.verification().pending() || execution.verification().givenUp()));
    if (!presented.done()) {
      // A check settled it in the same task: the verdict was not taken (state only: the inbox is emptied).
      inbox.takeVerification();
      throw ApplicationFailure.newNonRetryableFailure("execution " + execution.executionId() + " became "
          + execution.record().view() + " before this verdict was taken; nothing was changed", ErrorTypes.INVALID_TRANSITION);
    }
    throwIfRefused(presented);
    return execution.record();
  }

  @Override
  public void validateDecideApproval(ApprovalDecision decision) {
    String executionId = execution.executionId();
    // A signed statement's binding is checked when it is verified; the plain fields are the caller's claim.
    boolean signed = decision.signedDecision() != null;
    if (!signed && (!executionId.equals(decision.executionId()) || !input.fingerprint().equals(decision.fingerprint()))) {
      throw ApplicationFailure.newNonRetryableFailure(
          "this approval names " + decision.executionId() + " / " + decision.fingerprint()
              + ", not execution " + executionId + " / " + input.fingerprint(),
          ErrorTypes.INVALID_TRANSITION);
    }
    if (execution.state() != ExecutionState.AWAITING_APPROVAL || inbox.approvalWaiting()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + executionId + " is " + execution.state().wireName() + ", not awaiting approval",
          ErrorTypes.INVALID_TRANSITION);
    }
    if (Workflow.currentTimeMillis() >= inbox.approvalDeadline()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the approval of execution " + executionId + " expired at " + Instant.ofEpochMilli(inbox.approvalDeadline()),
          ErrorTypes.INVALID_TRANSITION);
    }
  }

  @Override
  public ExecutionRecord decideApproval(ApprovalDecision decision) {
    Inbox.Presented presented = inbox.presentApproval(decision);
    // Done when the main method decided on it, or the wait ended otherwise (timeout, vault locked, cancel).
    Workflow.await(() -> presented.done() || execution.state() != ExecutionState.AWAITING_APPROVAL);
    throwIfRefused(presented);
    Workflow.await(() -> execution.state() != ExecutionState.AWAITING_APPROVAL);
    return execution.record();
  }

  private void throwIfRefused(Inbox.Presented presented) {
    if (presented.refusal() != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "execution " + execution.executionId() + ": decision refused: " + presented.refusal(), ErrorTypes.DECISION_REFUSED);
    }
  }

  @Override
  public ExecutionRecord cancel(CancelRequest request) {
    String who = request.by() + (request.reason().isEmpty() ? "" : ": " + request.reason());
    if (!execution.cancellable()) {
      execution.cancellationRefused(who, request.by());
      return execution.record();
    }
    execution.cancellationRequested(who);
    inbox.requestCancel();
    Workflow.await(() -> execution.state() == ExecutionState.CANCELLED || execution.state().mayHaveCrossedDispatch());
    return execution.record();
  }

  @Override
  public void sessionAuthorization(SessionAuthorization decision) {
    // A decision on another session is not this execution's; without a session id any is accepted.
    if (input.sessionId() == null || input.sessionId().equals(decision.sessionId())) {
      inbox.presentSessionDecision(decision);
    }
  }

  @Override
  public void recheckAuthorization(String reason) {
    inbox.requestRecheck();
  }
}
