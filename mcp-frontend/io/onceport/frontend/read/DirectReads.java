package io.onceport.frontend.read;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.InvalidArgumentsException;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.ReadPath;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.auth.AuthorizationActivities;
import io.onceport.workflow.auth.AuthorizationDecision;
import io.onceport.workflow.auth.AuthorizationRequest;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read path: a {@code read_only} HTTP tool answered by the front end itself, with no execution
 * identity — no fingerprint, no workflow, no attach, no delivery record — and a pooled connection.
 *
 * <p><b>Which calls take it.</b> A call to a {@code read_only} tool on the {@code http} channel,
 * with no explicit intent key (a client that names its intent asked for an execution), whose
 * contract timeout is no longer than the call wait (a read that may outlast the wait keeps an
 * execution the client can follow as a task or a resumed stream), and that the authorization
 * ladder allows right now. Everything else — SSH reads, a read the ladder rejects or makes wait
 * (vault locked, unknown credential, approve-each-use, a session not yet authorized) — takes the
 * durable path, where the workflow decides, waits and records exactly as for any execution.
 *
 * <p><b>Credentials stay where they may be.</b> The ladder and the credential resolver are this
 * process's own: {@code serve} (worker and front end in one JVM) hands the worker's vault to its
 * read path, so a credentialed read is answered directly there; a {@code frontend}-only process
 * holds no vault, its ladder rejects every credential reference ({@code vault_locked}), and so a
 * credentialed read from it takes the durable path and a worker resolves the credential. No
 * secret is ever logged, journalled or put in a result.
 *
 * <p><b>Retries.</b> A read that provably was not sent, or that got no answer, is sent again at
 * most {@value #ATTEMPTS} times in all, within the call wait; then the agent gets an error result
 * saying nothing was changed. A target answer of any status is the answer (4xx/5xx: an error
 * result carrying the body).
 *
 * <p><b>Record.</b> Reads are counted ({@code onceport_reads_total{tool,outcome}}) and, when this
 * process has a journal (serve), appended to its activity journal as one {@code read} entry without
 * waiting for the fsync: who read what with which credential reference, and what the target
 * answered. A frontend-only process has no journal; its reads are counted only (a credentialed read
 * there is durable and journalled by the worker).
 */
public final class DirectReads implements ReadPath {
  static final int ATTEMPTS = 3;
  private static final Logger LOG = LoggerFactory.getLogger(DirectReads.class);

  /** Where read entries go: the process's activity journal, written without waiting for its fsync. */
  @FunctionalInterface
  public interface ReadJournal {
    void read(Map<String, Object> payload, String appendKey);
  }

  private final ContractSet contracts;
  private final ArgumentValidator validator;
  private final AuthorizationActivities ladder;
  private final ReadChannel http;
  private final Duration callWait;
  private final String sessionPolicy;
  private final io.onceport.frontend.ops.Metrics metrics;
  private final ReadJournal journal;

  /**
   * @param ladder this process's authorization ladder (with its vault, or none)
   * @param http sends a read: the HTTP read channel with the vault in serve, with no credentials otherwise
   * @param sessionPolicy the front end's {@code --session-authorization}, as on durable calls
   * @param metrics may be null
   * @param journal may be null (no journal in this process)
   */
  public DirectReads(ContractSet contracts, ArgumentValidator validator, AuthorizationActivities ladder,
      ReadChannel http, Duration callWait, String sessionPolicy,
      io.onceport.frontend.ops.Metrics metrics, ReadJournal journal) {
    this.contracts = Objects.requireNonNull(contracts, "contracts == null");
    this.validator = Objects.requireNonNull(validator, "validator == null");
    this.ladder = Objects.requireNonNull(ladder, "ladder == null");
    this.http = Objects.requireNonNull(http, "http == null");
    this.callWait = Objects.requireNonNull(callWait, "callWait == null");
    this.sessionPolicy = sessionPolicy;
    this.metrics = metrics;
    this.journal = journal;
  }

  @Override
  public Optional<Planned> plan(ToolCall call) {
    Optional<ToolContract> found = contracts.find(call.tool());
    if (found.isEmpty()) {
      return Optional.empty();
    }
    ToolContract contract = found.get();
    if (contract.replayClass() != ReplayClass.READ_ONLY || contract.channel() != ToolContract.Channel.HTTP
        || contract.http() == null || call.intentKey() != null && !call.intentKey().isBlank()
        || contract.http().timeoutMillis() > callWait.toMillis()) {
      return Optional.empty();
    }
    ObjectNode arguments;
    try {
      arguments = validator.validate(contract, call.arguments());
    } catch (InvalidArgumentsException e) {
      throw new GatewayException(GatewayException.Kind.INVALID_ARGUMENTS,
          "Invalid arguments for " + call.tool() + ": " + String.join("; ", e.errors()), e);
    }
    String readId = "read_" + UUID.randomUUID().toString().replace("-", "");
    AuthorizationDecision decision = ladder.decide(new AuthorizationRequest(readId, "", contract.tool(), call.actor(),
        call.sessionId(), contract.credentialRef(), target(contract), sessionPolicy));
    if (decision.kind() != AuthorizationDecision.Kind.ALLOW) {
      // The durable path decides again, waits for whoever must decide, and records the outcome.
      LOG.debug("read of {} takes the durable path: {} ({})", contract.tool(), decision.kind(), decision.rule());
      return Optional.empty();
    }
    List<String> steps = List.of(
        "read accepted: " + contract.tool() + " is read_only, answered directly without an execution identity",
        "read authorized (" + decision.rule() + ")");
    return Optional.of(new Read(call, contract, arguments.toString(), readId, steps));
  }

  /** The target as the ladder sees it: the URL template without its query (no argument values). */
  private static String target(ToolContract contract) {
    String url = contract.http().url();
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }

  private final class Read implements Planned {
    private final ToolCall call;
    private final ToolContract contract;
    private final String arguments;
    private final String readId;
    private final List<String> steps;

    Read(ToolCall call, ToolContract contract, String arguments, String readId, List<String> steps) {
      this.call = call;
      this.contract = contract;
      this.arguments = arguments;
      this.readId = readId;
      this.steps = steps;
    }

    @Override
    public ToolContract contract() {
      return contract;
    }

    @Override
    public String readId() {
      return readId;
    }

    @Override
    public List<String> steps() {
      return steps;
    }

    @Override
    public Answer send(Consumer<String> onStep) {
      long started = System.nanoTime();
      long deadline = started + callWait.toNanos();
      Answer answer = null;
      for (int attempt = 1; answer == null; attempt++) {
        int n = attempt;
        Runnable beforeSend = () -> onStep.accept("sent to the target" + (n > 1 ? " (attempt " + n + ")" : ""));
        try {
          DispatchResult result = http.send(new DispatchRequest(readId, "", contract, arguments, attempt), beforeSend);
          answer = new Answer(readId, result, (result.succeeded() ? "read completed" : "read failed")
              + (result.status() != null ? " with target status " + result.status() : "")
              + " (read_only: answered directly, without an execution identity; call again to read again)");
        } catch (ApplicationFailure f) {
          boolean again = ErrorTypes.NOT_SENT.equals(f.getType()) || ErrorTypes.OUTCOME_UNKNOWN.equals(f.getType());
          long backoff = 100L << (attempt - 1);
          if (again && attempt < ATTEMPTS && System.nanoTime() + backoff * 1_000_000 < deadline) {
            onStep.accept("no answer (" + f.getOriginalMessage() + "); reading again");
            sleep(backoff);
            continue;
          }
          answer = new Answer(readId, null, "the read got no answer: " + f.getOriginalMessage()
              + " (read_only: nothing was changed; calling again is safe)");
        } catch (RuntimeException e) {
          answer = new Answer(readId, null, "the read failed before an answer: " + e.getClass().getSimpleName()
              + " (read_only: nothing was changed)");
          LOG.warn("read {} of {} failed: {}", readId, contract.tool(), e.toString());
        }
      }
      record(answer, Duration.ofNanos(System.nanoTime() - started));
      return answer;
    }

    private void record(Answer answer, Duration elapsed) {
      String outcome = answer.result() == null ? "no_answer" : answer.completed() ? "completed" : "failed";
      if (metrics != null) {
        metrics.read(contract.tool(), outcome, elapsed);
      }
      if (journal == null) {
        return;
      }
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("read_id", readId);
      detail.put("tool", contract.tool());
      detail.put("actor", call.actor());
      detail.put("target", target(contract));
      detail.put("outcome", outcome);
      putIfPresent(detail, "credential", contract.credentialRef());
      putIfPresent(detail, "session", call.sessionId());
      putIfPresent(detail, "jsonrpc_id", call.jsonRpcId());
      if (answer.result() != null && answer.result().status() != null) {
        detail.put("target_status", answer.result().status());
      }
      Map<String, Object> payload = new LinkedHashMap<>();
      payload.put("execution_id", null);
      payload.put("fingerprint", null);
      payload.put("transition", "read");
      payload.put("attempt", 1);
      payload.put("at", Instant.now().truncatedTo(ChronoUnit.MILLIS).toString());
      payload.put("detail", detail);
      try {
        journal.read(payload, readId + "/read/1");
      } catch (RuntimeException e) {
        // The answer stands (a read changed nothing); the journal's own failure stops its dispatches.
        LOG.warn("read {} of {} not journalled: {}", readId, contract.tool(), e.getMessage());
      }
    }
  }

  private static void putIfPresent(Map<String, Object> m, String key, String value) {
    if (value != null) {
      m.put(key, value);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
