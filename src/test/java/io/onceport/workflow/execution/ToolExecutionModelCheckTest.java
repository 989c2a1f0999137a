package io.onceport.workflow.execution;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.dispatch.DispatchJournal;
import io.onceport.testing.AllowAll;
import io.onceport.testing.Contracts;
import io.onceport.testing.RecordingJournal;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchActivities;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.Sent;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A model check of the ToolExecution workflow: the real workflow (and the real send activity,
 * {@link DispatchActivitiesImpl}) in the Temporal test environment with time skipping, against a
 * recording target that counts every request it receives (repeated keys included) and every time
 * it acts, driven through random interleavings of calls, duplicate calls, retries with a new
 * JSON-RPC id, cancellations, disconnects, delivery reports, target faults (accept-then-drop,
 * drop-without-acting, slow beyond the timeout and acting late, 5xx, 503 Retry-After, not sent),
 * status-facility faults (202 "processing", a failing status request), a worker lost mid-send and
 * operator resolutions.
 *
 * <p>Invariants, per intent: at most one act for {@code irreversible} and {@code status_query};
 * a same-key re-send only where the class allows it (after proof or an operator's redispatch for
 * {@code status_query}, after an operator's redispatch for {@code irreversible}); every execution
 * ends final or in {@code needs_review}; an agent is never told "completed" unless the target
 * acted; every send is on the record (sends that may have reached the target == requests the
 * target received for that execution id); no second execution for an intent whose agent never got
 * a delivered answer. Totals are printed at the end of each property.
 *
 * <p>With verification in play ({@code attach_window: until_verified}, in a random half of the cases
 * of every class but {@code read_only}): checks answer the truth (the target acted: verified; it did
 * not: not applied), "not yet known" (202) or fail, and an operator settles a verification that gave
 * up by the truth. Further invariants: a run never closes while its verification is pending; a check
 * never verifies an effect the target did not make; a re-send after "not applied" follows a check
 * made at least {@code settle} after the send ended, and only where the class allows it.
 *
 * <p>The default run tries 300 cases; {@code mvn -B test -DexcludedGroups= -Dgroups=long} runs the
 * 10,000-case version.
 */
class ToolExecutionModelCheckTest {
  /** The operator who resolves reviews, registered where the worker's verification reads it. */
  private static final java.nio.file.Path OPERATORS = tempDirectory();
  private static final io.onceport.activity.operator.OperatorKey OPERATOR = io.onceport.testing.Operators.register(OPERATORS, "model");
  private static final io.onceport.activity.operator.OperatorActivitiesImpl OPERATOR_ACTIVITIES =
      new io.onceport.activity.operator.OperatorActivitiesImpl(new io.onceport.activity.operator.OperatorRegistry(OPERATORS));

  private static java.nio.file.Path tempDirectory() {
    try {
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("onceport-model-operators");
      dir.toFile().deleteOnExit();
      return dir;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static final String QUEUE = "model-check";
  private static final long TIMEOUT_MILLIS = 5_000; // the contracts' HTTP timeout = their settle time
  private static final Duration WINDOW = Duration.ofMinutes(2);

  private static TestWorkflowEnvironment env;
  private static WorkflowClient client;
  private static final Target target = new Target();
  private static int envCases;

  /** Faults the target (or the worker) can show on one send. */
  enum SendFault {
    OK, ACCEPT_THEN_DROP, DROP_WITHOUT_ACTING, SLOW_ACTS_LATE, HTTP_500, HTTP_503_RETRY_AFTER, NOT_SENT, WORKER_LOST,
    /** Answered 201, and the effect never takes place (the demo target's {@code apply-never}): only a verification can tell. */
    ANSWERED_NOT_APPLIED
  }

  /** What the status facility does on one query. */
  enum StatusFault { TRUTH, PROCESSING_202, QUERY_FAILS }

  /** What one verification check of an execution kept until verified answers. */
  enum VerifyFault { TRUTH, NOT_YET_202, CHECK_FAILS }

  /** What the agent, its client or an operator does next. */
  enum Op { DUPLICATE_CALL, RETRY_NEW_ID, CANCEL, DISCONNECT, DELIVER, ADVANCE, OPERATOR }

  record Case(ReplayClass replay, List<SendFault> sends, List<StatusFault> statuses, List<Op> ops, List<Integer> advances,
      boolean untilVerified, List<VerifyFault> checks) {
    boolean verifies() {
      return untilVerified && replay != ReplayClass.READ_ONLY;
    }
  }

  // ---- the recording target ----

  /** Per execution id: requests received, acts, and a pending late act. */
  static final class Ledger {
    final AtomicInteger received = new AtomicInteger();
    final AtomicInteger acts = new AtomicInteger();
    /** Requests answered with success whose effect never took place ({@link SendFault#ANSWERED_NOT_APPLIED}). */
    final AtomicInteger answeredWithoutEffect = new AtomicInteger();
    volatile long lateActAt = -1;

    boolean acted(long now) {
      settleLate(now);
      return acts.get() > 0;
    }

    synchronized void settleLate(long now) {
      if (lateActAt >= 0 && now >= lateActAt) {
        lateActAt = -1;
        acts.incrementAndGet();
      }
    }
  }

  /** The target and the fault plan; keyed by fingerprint (intent) and execution id (key). */
  static final class Target implements DispatchChannel {
    final Map<String, Case> plans = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> sendIndex = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> statusIndex = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> verifyIndex = new ConcurrentHashMap<>();
    final Map<String, Ledger> ledgers = new ConcurrentHashMap<>();
    final Map<String, String> intentOf = new ConcurrentHashMap<>();

    Ledger ledger(String key) {
      return ledgers.computeIfAbsent(key, k -> new Ledger());
    }

    SendFault nextSend(DispatchRequest r) {
      Case c = plans.get(r.fingerprint());
      int i = sendIndex.computeIfAbsent(r.fingerprint(), k -> new AtomicInteger()).getAndIncrement();
      return c == null || i >= c.sends().size() ? SendFault.OK : c.sends().get(i);
    }

    /** The target receives the request (and acts, unless the fault says it does not). */
    void receive(DispatchRequest r, SendFault fault) {
      intentOf.put(r.executionId(), r.fingerprint());
      Ledger l = ledger(r.executionId());
      l.received.incrementAndGet();
      boolean dedups = r.contract().replayClass() == ReplayClass.IDEMPOTENCY_KEY;
      switch (fault) {
        case OK, ACCEPT_THEN_DROP, HTTP_503_RETRY_AFTER, WORKER_LOST -> {
          if (fault == SendFault.HTTP_503_RETRY_AFTER) {
            return; // 503: turned away without acting
          }
          if (!(dedups && l.acts.get() > 0)) {
            l.acts.incrementAndGet();
          }
        }
        case SLOW_ACTS_LATE -> {
          if (!(dedups && l.acts.get() > 0)) {
            // keeps working after the gateway gave up, finishing before the settle time passes
            l.lateActAt = env.currentTimeMillis() + TIMEOUT_MILLIS - 1;
          }
        }
        case ANSWERED_NOT_APPLIED -> l.answeredWithoutEffect.incrementAndGet();
        case HTTP_500, DROP_WITHOUT_ACTING, NOT_SENT -> { }
      }
    }

    @Override
    public DispatchResult dispatch(DispatchRequest r, DispatchContext context) {
      SendFault fault = nextSend(r);
      if (fault == SendFault.NOT_SENT) {
        throw ApplicationFailure.newFailure("connection refused (model)", ErrorTypes.NOT_SENT);
      }
      context.beforeSend();
      receive(r, fault);
      return switch (fault) {
        case OK, ANSWERED_NOT_APPLIED -> DispatchResult.http(201, Map.of(), "{\"id\":\"" + r.executionId() + "\"}", false, 1);
        case HTTP_500 -> DispatchResult.http(500, Map.of(), "boom", false, 1);
        case HTTP_503_RETRY_AFTER -> DispatchResult.http(503, Map.of("retry-after", "0"), "busy", false, 1);
        default -> throw ApplicationFailure.newNonRetryableFailure("connection dropped after the request was written (model: "
            + fault + ")", ErrorTypes.OUTCOME_UNKNOWN);
      };
    }

    @Override
    public io.onceport.workflow.verify.VerifyAnswer verify(io.onceport.workflow.verify.VerifyRequest r, DispatchContext context) {
      return verifyFromLedger(r);
    }

    @Override
    public StatusResult queryStatus(DispatchRequest r, DispatchContext context) {
      Case c = plans.get(r.fingerprint());
      int i = statusIndex.computeIfAbsent(r.fingerprint(), k -> new AtomicInteger()).getAndIncrement();
      StatusFault fault = c == null || i >= c.statuses().size() ? StatusFault.TRUTH : c.statuses().get(i);
      if (fault == StatusFault.QUERY_FAILS) {
        throw ApplicationFailure.newFailure("status endpoint unreachable (model)", ErrorTypes.NOT_SENT);
      }
      if (fault == StatusFault.PROCESSING_202) {
        return new StatusResult(StatusResult.Verdict.UNKNOWN, DispatchResult.http(202, Map.of(), "processing", false, 1),
            "status endpoint answered 202, which is in neither list");
      }
      return ledger(r.executionId()).acted(env.currentTimeMillis())
          ? new StatusResult(StatusResult.Verdict.COMPLETED, DispatchResult.http(200, Map.of(), "{}", false, 1), "found")
          : new StatusResult(StatusResult.Verdict.NOT_EXECUTED, DispatchResult.http(404, Map.of(), "", false, 1), "404");
    }
  }

  /** The model's verification: the truth of the ledger (after late acts), "not yet known", or a failed check. */
  static io.onceport.workflow.verify.VerifyAnswer verifyFromLedger(io.onceport.workflow.verify.VerifyRequest r) {
    Case c = target.plans.get(r.fingerprint());
    int i = target.verifyIndex.computeIfAbsent(r.fingerprint(), k -> new AtomicInteger()).getAndIncrement();
    VerifyFault fault = c == null || i >= c.checks().size() ? VerifyFault.TRUTH : c.checks().get(i);
    return switch (fault) {
      case CHECK_FAILS -> throw ApplicationFailure.newFailure("verification endpoint unreachable (model)", ErrorTypes.NOT_SENT);
      case NOT_YET_202 -> new io.onceport.workflow.verify.VerifyAnswer(io.onceport.workflow.verify.VerifyAnswer.Verdict.NOT_YET_KNOWN,
          202, List.of(), "not yet known: 202 (model)");
      case TRUTH -> target.ledger(r.executionId()).acted(env.currentTimeMillis())
          ? new io.onceport.workflow.verify.VerifyAnswer(io.onceport.workflow.verify.VerifyAnswer.Verdict.VERIFIED, 200, List.of(),
              "the effect is there (model)")
          : new io.onceport.workflow.verify.VerifyAnswer(io.onceport.workflow.verify.VerifyAnswer.Verdict.NOT_APPLIED, 410, List.of(),
              "the effect is absent (model)");
    };
  }

  /** The real send activity, except that a "worker lost" send never completes (the server times it out). */
  static final class CrashingWorker implements DispatchActivities {
    final DispatchActivitiesImpl real;

    CrashingWorker(DispatchActivitiesImpl real) {
      this.real = real;
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
      return real.dispatch(request);
    }

    @Override
    public Sent send(DispatchRequest request) {
      Case c = target.plans.get(request.fingerprint());
      AtomicInteger index = target.sendIndex.computeIfAbsent(request.fingerprint(), k -> new AtomicInteger());
      int i = index.get();
      if (c != null && i < c.sends().size() && c.sends().get(i) == SendFault.WORKER_LOST) {
        index.incrementAndGet();
        target.receive(request, SendFault.WORKER_LOST);
        // The worker dies after the request left: the send ends without an answer. (The server's
        // heartbeat timeout itself takes 15 s of real time on the test server, which holds a
        // time-skipping lock while an activity runs; ToolExecutionWorkflowTest covers that path
        // with a real lost worker. The replay policy treats both facts alike: ReplayPolicyTest.)
        throw ApplicationFailure.newNonRetryableFailure("worker lost mid-send (model)", ErrorTypes.OUTCOME_UNKNOWN);
      }
      return real.send(request);
    }

    @Override
    public StatusResult queryStatus(DispatchRequest request) {
      return real.queryStatus(request);
    }

    @Override
    public io.onceport.workflow.verify.VerifyAnswer verifyEffect(io.onceport.workflow.verify.VerifyRequest request) {
      return real.verifyEffect(request);
    }
  }

  static final class SendJournal implements DispatchJournal {
    final List<JournalEntry> entries = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public void dispatched(DispatchRequest request) {
      entries.add(new JournalEntry(request.executionId(), request.fingerprint(), "dispatched", request.attempt(), Instant.now().toString(), Map.of()));
    }

    @Override
    public void append(List<JournalEntry> batch, com.uber.m3.tally.Scope metrics) {
      entries.addAll(batch);
    }
  }

  // ---- environment ----

  @BeforeContainer
  static void startEnvironment() {
    newEnvironment();
  }

  private static void newEnvironment() {
    if (env != null) {
      env.close();
    }
    env = TestWorkflowEnvironment.newInstance();
    for (String name : ExecutionSearchAttributes.NAMES) {
      env.registerSearchAttribute(name, io.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    io.temporal.worker.Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(ToolExecutionWorkflowImpl.class, TickerImpl.class);
    Map<ToolContract.Channel, DispatchChannel> channels = new EnumMap<>(ToolContract.Channel.class);
    channels.put(ToolContract.Channel.HTTP, target);
    worker.registerActivitiesImplementations(
        new CrashingWorker(new DispatchActivitiesImpl(channels, new SendJournal(), io.onceport.activity.vault.CredentialResolver.NONE)),
        new RecordingJournal(), new AllowAll(), OPERATOR_ACTIVITIES);
    env.start();
    client = env.getWorkflowClient();
    envCases = 0;
    WorkflowClient.start(client.newWorkflowStub(Ticker.class, WorkflowOptions.newBuilder()
        .setWorkflowId("ticker").setTaskQueue(QUEUE).build())::tick, 0);
  }

  @AfterContainer
  static void stopEnvironment() {
    if (env != null) {
      env.close();
      env = null;
    }
  }

  // ---- generators ----

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<ReplayClass> replay = Arbitraries.of(ReplayClass.class);
    Arbitrary<List<SendFault>> sends = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Arbitraries.just(SendFault.OK)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(SendFault.ACCEPT_THEN_DROP)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(SendFault.DROP_WITHOUT_ACTING)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(SendFault.SLOW_ACTS_LATE)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(SendFault.HTTP_500)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(SendFault.HTTP_503_RETRY_AFTER)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(SendFault.NOT_SENT)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(SendFault.WORKER_LOST)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(SendFault.ANSWERED_NOT_APPLIED))).list().ofMaxSize(4);
    Arbitrary<List<StatusFault>> statuses = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(4, Arbitraries.just(StatusFault.TRUTH)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(StatusFault.PROCESSING_202)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(StatusFault.QUERY_FAILS))).list().ofMaxSize(4);
    Arbitrary<List<Op>> ops = Arbitraries.of(Op.class).list().ofMaxSize(7);
    Arbitrary<List<Integer>> advances = Arbitraries.of(0, 500, 2_000, 4_999, 6_000, 20_000, 70_000).list().ofSize(7);
    Arbitrary<List<VerifyFault>> checks = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, Arbitraries.just(VerifyFault.TRUTH)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(VerifyFault.NOT_YET_202)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(VerifyFault.CHECK_FAILS))).list().ofMaxSize(8);
    return Combinators.combine(replay, sends, statuses, ops, advances, Arbitraries.of(true, false), checks).as(Case::new);
  }

  // ---- totals ----

  static final class Totals {
    final AtomicLong intents = new AtomicLong();
    final AtomicLong sends = new AtomicLong();
    final AtomicLong duplicateDifferentKeys = new AtomicLong();
    final AtomicLong sameKeyDoubleActs = new AtomicLong();
    final AtomicLong stuck = new AtomicLong();
    final AtomicLong lost = new AtomicLong();
    final AtomicLong needsReview = new AtomicLong();
    final AtomicLong resends = new AtomicLong();
    final AtomicLong keptUntilVerified = new AtomicLong();
    final AtomicLong seenPending = new AtomicLong();
    final AtomicLong verified = new AtomicLong();
    final AtomicLong notApplied = new AtomicLong();
    final AtomicLong givenUp = new AtomicLong();
    final AtomicLong verdicts = new AtomicLong();
  }

  private Totals totals = new Totals();

  @AfterProperty
  void printTotals() {
    System.out.printf("model check totals: intended actions %d, sends %d (same-key re-sends %d), "
            + "duplicate side effects with different keys %d, same-key double acts for at-most-once classes %d, "
            + "stuck executions %d, lost executions %d (ended in needs_review before an operator: %d); "
            + "kept until verified %d (seen pending %d, verified %d, not applied %d, given up %d, operator verdicts %d)%n",
        totals.intents.get(), totals.sends.get(), totals.resends.get(), totals.duplicateDifferentKeys.get(),
        totals.sameKeyDoubleActs.get(), totals.stuck.get(), totals.lost.get(), totals.needsReview.get(),
        totals.keptUntilVerified.get(), totals.seenPending.get(), totals.verified.get(), totals.notApplied.get(),
        totals.givenUp.get(), totals.verdicts.get());
    Totals seen = totals;
    totals = new Totals();
    // The cases must reach every verification fact, or the invariants above were never tried on it.
    assertAll("verification facts the model reached",
        () -> assertTrue(seen.seenPending.get() > 0, "pending"),
        () -> assertTrue(seen.verified.get() > 0, "verified"),
        () -> assertTrue(seen.notApplied.get() > 0, "not applied"),
        () -> assertTrue(seen.givenUp.get() > 0, "given up"));
  }

  @Property(tries = 300, seed = "20261201")
  void theWorkflowKeepsEveryExactlyOnceInvariant(@ForAll("cases") Case c) {
    check(c);
  }

  @Property(tries = 10_000)
  @Tag("long")
  void theWorkflowKeepsEveryExactlyOnceInvariantLong(@ForAll("cases") Case c) {
    check(c);
  }

  /** The same contract with {@code attach_window: until_verified}: checks every second, giving up after a minute. */
  static ToolContract keptUntilVerified(ToolContract c) {
    io.onceport.workflow.contract.VerifySpec verify = io.onceport.workflow.contract.VerifySpec.newBuilder()
        .setHttp("GET", "http://127.0.0.1:9/v1/releases/verify/{{execution_id}}")
        .setEvery(Duration.ofSeconds(1))
        .setGiveUpAfter(Duration.ofMinutes(1))
        .setVerifiedWindow(Duration.ofSeconds(5))
        .setVerifiedWhen(io.onceport.workflow.contract.VerifyCondition.status(List.of(200)))
        .setNotAppliedWhen(io.onceport.workflow.contract.VerifyCondition.status(List.of(410)))
        .build();
    return new ToolContract(c.tool() + "_verified", c.description(), c.inputSchema(), c.outputSchema(), c.channel(), c.http(), c.ssh(),
        new io.onceport.workflow.contract.ReplaySpec(c.replayClass(), c.replay().attachWindow(), c.replay().status(), verify),
        c.fingerprintIgnore(), c.fingerprintSecret(), c.resultFormat(), c.mcp());
  }

  // ---- the driver ----

  private static final AtomicInteger COUNTER = new AtomicInteger();

  private void check(Case c) {
    if (++envCases >= 1_000) {
      newEnvironment();
    }
    int n = COUNTER.incrementAndGet();
    String fingerprint = "hmac-sha256:" + String.format("%064x", n);
    target.plans.put(fingerprint, c);
    ToolContract contract = Contracts.http("model_" + c.replay().wireName(), c.replay(), "http://127.0.0.1:9", WINDOW);
    if (c.verifies()) {
      contract = keptUntilVerified(contract);
      totals.keptUntilVerified.incrementAndGet();
    }
    ExecutionInput input = ExecutionInput.of(fingerprint, contract.tool(), "agent:model", "actor:agent:model", null, "s1",
        "http://127.0.0.1:9/v1/releases", "POST", contract, "{\"n\":" + n + "}", "auto");
    String workflowId = "model-" + n;
    Driver d = new Driver(input, workflowId);
    totals.intents.incrementAndGet();
    try {
      d.call("1");
      int advance = 0;
      for (Op op : c.ops()) {
        if (d.delivered) {
          break; // the agent has its answer: it does not call again
        }
        switch (op) {
          case DUPLICATE_CALL -> d.call("dup-" + d.calls);
          case RETRY_NEW_ID -> {
            d.report(false);
            d.call("retry-" + d.calls);
          }
          case CANCEL -> d.cancel();
          case DISCONNECT -> d.report(false);
          case DELIVER -> d.deliverIfSettled();
          case ADVANCE -> env.sleep(Duration.ofMillis(Math.max(1, c.advances().get(advance++ % c.advances().size()))));
          case OPERATOR -> d.operator(false);
        }
      }
      d.finish();
    } catch (RuntimeException e) {
      totals.lost.incrementAndGet();
      throw new AssertionError("case " + c + " lost its execution: " + e, e);
    }
    d.verify(c);
  }

  /**
   * The test server releases a time-skipping lock it did not take on some activity paths; an idle,
   * unlocked server then jumps its clock by a decade at a time and a later workflow's metrics
   * overflow. A ticker workflow keeps a timer at most 30 s ahead at all times, so the clock can only
   * move in small steps, whatever the lock count.
   */
  @io.temporal.workflow.WorkflowInterface
  public interface Ticker {
    @io.temporal.workflow.WorkflowMethod
    void tick(int generation);
  }

  public static final class TickerImpl implements Ticker {
    @Override
    public void tick(int generation) {
      for (int i = 0; i < 100; i++) {
        io.temporal.workflow.Workflow.sleep(Duration.ofSeconds(30));
      }
      io.temporal.workflow.Workflow.continueAsNew(generation + 1);
    }
  }


  private final class Driver {
    final ExecutionInput input;
    final String workflowId;
    final List<ExecutionRecord> seen = new ArrayList<>();
    final List<String> executionIds = new ArrayList<>();
    String runId;
    String lastCall;
    int calls;
    int redispatches;
    boolean delivered;

    Driver(ExecutionInput input, String workflowId) {
      this.input = input;
      this.workflowId = workflowId;
    }

    /** A call (or a client's retry) as the front end makes it: update-with-start, USE_EXISTING. */
    void call(String jsonRpcId) {
      if (runId != null && !open()) {
        return; // the execution closed (delivered, or its attach window passed): a call now is a new intent
      }
      calls++;
      lastCall = "call-" + workflowId + "-" + calls;
      ToolExecutionWorkflow stub = client.newWorkflowStub(ToolExecutionWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(workflowId).setTaskQueue(QUEUE)
          .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
          .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE).build());
      ExecutionRecord r;
      try {
        r = WorkflowClient.executeUpdateWithStart(stub::attach,
          new AttachRequest(lastCall, input.fingerprint(), jsonRpcId, "s1", null, null, "2025-06-18", "model/1", "127.0.0.1", "fe",
              Instant.now().toString(), 0),
          UpdateOptions.<ExecutionRecord>newBuilder().setUpdateId(lastCall).setWaitForStage(WorkflowUpdateStage.COMPLETED).build(),
          new WithStartWorkflowOperation<>(stub::run, input));
      } catch (io.temporal.client.WorkflowUpdateException e) {
        // RunClosing (the client sees it wrapped: its type is in the failure's message)
        if (String.valueOf(e.getCause() == null ? null : e.getCause().getMessage()).contains("no longer takes calls")) {
          calls--;
          return; // past its tail or verified window: a call now is a new intent, which the model does not make
        }
        throw e;
      }
      runId = r.runId();
      if (!executionIds.contains(r.executionId())) {
        executionIds.add(r.executionId());
      }
      seen.add(r);
    }

    ToolExecutionWorkflow running() {
      return client.newWorkflowStub(ToolExecutionWorkflow.class, workflowId, Optional.of(runId));
    }

    boolean open() {
      return env.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
          .setNamespace(env.getNamespace()).setExecution(io.temporal.api.common.v1.WorkflowExecution.newBuilder()
              .setWorkflowId(workflowId).setRunId(runId)).build()).getWorkflowExecutionInfo().getStatus()
          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    }

    ExecutionRecord record() {
      ExecutionRecord r = open()
          ? running().record()
          : client.newUntypedWorkflowStub(workflowId, Optional.of(runId), Optional.empty()).getResult(ExecutionRecord.class);
      seen.add(r);
      return r;
    }

    void cancel() {
      if (open()) {
        seen.add(running().cancel(new CancelRequest("agent:model", "client gave up", lastCall)));
      }
    }

    void report(boolean ok) {
      if (open()) {
        running().reportDelivery(new DeliveryReport(lastCall, ok, Instant.now().toString(), ok ? "" : "client gone"));
      }
    }

    void deliverIfSettled() {
      if (open() && record().isSettled() && record().state() != ExecutionState.NEEDS_REVIEW) {
        report(true);
        delivered = true;
      }
    }

    /** An operator who checks the target's ledger: completed if it acted; redispatch or failed once it cannot still be working. */
    void operator(boolean patient) {
      if (!open()) {
        return;
      }
      ExecutionRecord r = record();
      if (r.state() != ExecutionState.NEEDS_REVIEW) {
        return;
      }
      if (r.verification() != null && ExecutionRecord.Verification.GIVEN_UP.equals(r.verification().state())) {
        verdict(r);
        return;
      }
      Ledger l = target.ledger(r.executionId());
      long now = env.currentTimeMillis();
      Resolution decision;
      if (l.acted(now)) {
        decision = signed(r, Resolution.Decision.COMPLETED, "seen in the target's ledger");
      } else if (l.lateActAt >= 0) {
        if (!patient) {
          return; // the target may still be working on it: a careful operator waits
        }
        env.sleep(Duration.ofMillis(TIMEOUT_MILLIS));
        operator(true);
        return;
      } else {
        boolean redispatch = (r.executionId().hashCode() & 1) == 0;
        decision = signed(r, redispatch ? Resolution.Decision.REDISPATCH : Resolution.Decision.FAILED, "not in the target's ledger");
        if (redispatch) {
          redispatches++;
        }
      }
      seen.add(running().resolve(decision));
    }

    /** Checks gave up: the operator looks at the target and signs what it sees (a late act may still land: a careful one waits). */
    void verdict(ExecutionRecord r) {
      Ledger l = target.ledger(r.executionId());
      if (!l.acted(env.currentTimeMillis()) && l.lateActAt >= 0) {
        env.sleep(Duration.ofMillis(TIMEOUT_MILLIS));
      }
      VerificationDecision.Decision d = l.acted(env.currentTimeMillis()) ? VerificationDecision.Decision.VERIFIED
          : VerificationDecision.Decision.NOT_APPLIED;
      io.onceport.workflow.operator.SignedDecision s = OPERATOR.sign(io.onceport.activity.operator.DecisionStatement.issue(
          "verification", r.executionId(), r.fingerprint(), d.wireName(), "looked at the target's ledger", OPERATOR,
          java.time.Instant.ofEpochMilli(env.currentTimeMillis()), Duration.ofMinutes(10)));
      totals.verdicts.incrementAndGet();
      seen.add(running().verify(new VerificationDecision(d, "looked at the target's ledger", OPERATOR.operator(), s.statement(),
          s.signature())));
    }

    /** The operator's resolution, signed with the model operator's key at the engine's time. */
    private Resolution signed(ExecutionRecord r, Resolution.Decision d, String reason) {
      return io.onceport.testing.Operators.resolution(OPERATOR, r, d, reason, java.time.Instant.ofEpochMilli(env.currentTimeMillis()));
    }

    /** Lets time pass, resolves reviews, and delivers, until the run closed; bounded. */
    void finish() {
      for (int round = 0; round < 60 && open(); round++) {
        env.sleep(Duration.ofSeconds(20));
        if (!open()) {
          break;
        }
        ExecutionRecord r = record();
        if (r.state() == ExecutionState.NEEDS_REVIEW) {
          totals.needsReview.incrementAndGet();
          operator(true);
        } else if (r.isSettled() && !delivered) {
          // the agent's retry after a lost answer, then reading it
          call("final-" + calls);
          report(true);
          delivered = true;
        }
      }
      if (open()) {
        env.sleep(WINDOW.plusSeconds(1));
      }
    }

    void verify(Case c) {
      if (open()) {
        totals.stuck.incrementAndGet();
        throw new AssertionError("stuck: " + record().view() + " — " + record().message() + " for " + c);
      }
      ExecutionRecord last = record();
      boolean finalOrReview = last.state().isTerminal() || last.state() == ExecutionState.NEEDS_REVIEW;
      if (!finalOrReview) {
        totals.stuck.incrementAndGet();
        throw new AssertionError("closed but neither final nor in review: " + last.view() + " for " + c);
      }
      checkVerification(c, last);
      boolean atMostOnce = c.replay() == ReplayClass.IRREVERSIBLE || c.replay() == ReplayClass.STATUS_QUERY;
      int acts = 0;
      for (String key : executionIds) {
        Ledger l = target.ledger(key);
        l.settleLate(Long.MAX_VALUE);
        acts += l.acts.get();
        totals.sends.addAndGet(l.received.get());
        totals.resends.addAndGet(Math.max(0, l.received.get() - 1));
        if (atMostOnce && l.acts.get() > 1) {
          totals.sameKeyDoubleActs.incrementAndGet();
          throw new AssertionError("key " + key + " acted " + l.acts.get() + " times for " + c + "; record " + last);
        }
      }
      if (executionIds.size() > 1 && acts > 1) {
        totals.duplicateDifferentKeys.incrementAndGet();
        throw new AssertionError(executionIds.size() + " executions acted " + acts + " times for one intent " + c);
      }
      // Every send on the record, and re-sends only where the class allows them.
      ExecutionRecord r = last;
      Ledger l = target.ledger(r.executionId());
      long recorded = r.sends().stream().filter(ExecutionRecord.Send::mayHaveReachedTarget).count();
      if (recorded != l.received.get()) {
        throw new AssertionError("record shows " + recorded + " sends, the target received " + l.received.get() + " for " + c + "; " + r.sends());
      }
      if (r.dispatchAttempts() != r.sends().size()) {
        throw new AssertionError("dispatch_attempts " + r.dispatchAttempts() + " != sends " + r.sends().size());
      }
      if (c.replay() == ReplayClass.IRREVERSIBLE && l.received.get() > 1 + redispatches) {
        throw new AssertionError("irreversible re-sent without an operator: " + r.sends() + " for " + c);
      }
      if (c.replay() == ReplayClass.STATUS_QUERY) {
        long proofs = r.statusChecks().stream().filter(s -> s.verdict().equals("not_executed")).count() + absentChecks(r).size();
        if (l.received.get() > 1 + redispatches + proofs) {
          throw new AssertionError("status_query re-sent without proof: " + r.sends() + " " + r.statusChecks() + " for " + c);
        }
        checkProofsCameAfterSettle(r, c);
      }
      // Never told "completed" unless the target acted or answered that it did.
      for (ExecutionRecord shown : seen) {
        Ledger shownLedger = target.ledger(shown.executionId());
        if (shown.state() == ExecutionState.COMPLETED && !shownLedger.acted(Long.MAX_VALUE)
            && shownLedger.answeredWithoutEffect.get() == 0) {
          throw new AssertionError("told completed, target never acted: " + shown + " for " + c);
        }
      }
    }

    /** When the checks (of the latest the record keeps) found the effect absent. */
    List<Long> absentChecks(ExecutionRecord r) {
      return r.verification() == null ? List.of() : r.verification().checks().stream()
          .filter(k -> k.verdict().equals("not_applied")).map(k -> Instant.parse(k.at()).toEpochMilli()).toList();
    }

    /**
     * Kept until verified: the run never closed while the verification was pending, a check never
     * verified an effect the target did not make, and the facts seen are counted.
     */
    void checkVerification(Case c, ExecutionRecord last) {
      if (!c.verifies()) {
        if (last.verification() != null) {
          throw new AssertionError("a verification on an execution kept by time: " + last.verification() + " for " + c);
        }
        return;
      }
      if (last.verification() != null && last.verification().pending()) {
        throw new AssertionError("closed while its verification was pending: " + last.verification() + " for " + c);
      }
      java.util.Set<String> states = new java.util.HashSet<>();
      for (ExecutionRecord shown : seen) {
        ExecutionRecord.Verification v = shown.verification();
        if (v == null) {
          continue;
        }
        states.add(v.state());
        boolean byCheck = v.decision() == null || !"verified".equals(v.decision().decision());
        if (ExecutionRecord.Verification.VERIFIED.equals(v.state()) && byCheck
            && !target.ledger(shown.executionId()).acted(Long.MAX_VALUE)) {
          throw new AssertionError("verified by a check, target never acted: " + v + " for " + c);
        }
      }
      if (last.verification() != null) {
        states.add(last.verification().state());
        last.verification().checks().forEach(k -> states.add(k.verdict()));
      }
      if (states.contains(ExecutionRecord.Verification.PENDING)) {
        totals.seenPending.incrementAndGet();
      }
      if (states.contains(ExecutionRecord.Verification.VERIFIED)) {
        totals.verified.incrementAndGet();
      }
      if (states.contains(ExecutionRecord.Verification.NOT_APPLIED)) {
        totals.notApplied.incrementAndGet();
      }
      if (states.contains(ExecutionRecord.Verification.GIVEN_UP)) {
        totals.givenUp.incrementAndGet();
      }
    }

    /** Each re-send of a status_query tool followed a not-executed answer obtained ≥ settle after the previous send ended. */
    void checkProofsCameAfterSettle(ExecutionRecord r, Case c) {
      List<ExecutionRecord.Send> s = r.sends();
      for (int i = 1; i < s.size(); i++) {
        if (!s.get(i - 1).mayHaveReachedTarget() || !s.get(i).mayHaveReachedTarget()) {
          continue;
        }
        long prevEnd = Instant.parse(s.get(i - 1).endedAt()).toEpochMilli();
        long start = Instant.parse(s.get(i).startedAt()).toEpochMilli();
        boolean proof = r.statusChecks().stream().anyMatch(k -> k.verdict().equals("not_executed")
            && Instant.parse(k.at()).toEpochMilli() >= prevEnd + TIMEOUT_MILLIS && Instant.parse(k.at()).toEpochMilli() <= start)
            || absentChecks(r).stream().anyMatch(at -> at >= prevEnd + TIMEOUT_MILLIS && at <= start);
        if (!proof && redispatches == 0) {
          throw new AssertionError("send " + (i + 1) + " without a proof after settle: " + s + " " + r.statusChecks() + " for " + c);
        }
      }
    }
  }
}
