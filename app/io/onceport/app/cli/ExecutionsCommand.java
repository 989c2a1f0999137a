package io.onceport.app.cli;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.frontend.temporal.ExecutionLocation;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.cli.CommandName;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.Resolution;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code onceport executions list|show|resolve|verify}: inspect and resolve execution records. */
@Command(
    name = "executions",
    mixinStandardHelpOptions = true,
    description = "Inspect executions, resolve those waiting for review, and settle the verification of those kept until verified.",
    subcommands = {ExecutionsCommand.ListCommand.class, ExecutionsCommand.ShowCommand.class, ExecutionsCommand.ResolveCommand.class,
        ExecutionsVerifyCommand.class})
public final class ExecutionsCommand implements Runnable {
  @Spec CommandSpec spec;

  /**
   * For {@code --json}: every non-ASCII character as a JSON escape (the same text for a JSON
   * reader), so agent-written values (bidi overrides, line separators) show nothing raw in a terminal;
   * control characters Jackson escapes anyway.
   */
  static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
      .enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static ExecutionRecord load(TemporalConnection connection, String executionId) {
    ExecutionDirectory directory = new ExecutionDirectory(connection);
    ExecutionLocation location = directory.locate(executionId)
        .orElseThrow(() -> new CliException("no execution " + executionId + " in namespace " + connection.namespace() + " at " + connection.target()));
    try {
      return directory.record(location);
    } catch (RuntimeException e) {
      if (TemporalErrors.isDecodeFailure(e)) {
        throw e; // the keys are wrong or missing: CliErrors names the key directory and --data
      }
      throw new CliException(unreadable(location, e));
    }
  }

  /**
   * What happened and what to do when a record cannot be read: its workflow exists, but no worker
   * answers for it — typically a workflow task that keeps failing (a NonDeterministicException after
   * an incompatible change), or no worker on its task queue.
   */
  static String unreadable(ExecutionLocation location, Throwable e) {
    return "the record of " + location.executionId() + " cannot be read: " + reason(e) + ". Its history is intact (workflow "
        + location.workflowId() + ", run " + location.runId() + "); no worker could answer for it — a workflow task that keeps "
        + "failing (see the worker log and `temporal workflow describe --workflow-id " + location.workflowId() + "`) or no worker "
        + "on its task queue. Start a worker with a compatible version, or reset the workflow to its last good task "
        + "(`temporal workflow reset`); nothing is re-sent while it cannot run.";
  }

  static String reason(Throwable e) {
    String last = e.getMessage();
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure app) {
        return app.getOriginalMessage();
      }
      if (t.getMessage() != null) {
        last = t.getMessage();
      }
    }
    String text = String.valueOf(last).replaceAll("\\s+", " ").trim();
    return text.length() > 300 ? text.substring(0, 300) + "…" : text;
  }

  /** One row of {@code executions list}: a record, or why it could not be read. */
  record Listed(ExecutionLocation location, ExecutionRecord record, String unreadable) {}

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List executions, newest first.")
  static final class ListCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Option(names = "--query", description = "Temporal visibility query, e.g. \"OnceportState = 'needs_review'\" or, for those waiting for "
        + "verification, \"OnceportState = 'completed_verification_pending'\" (needs a cluster with visibility).")
    String query;

    @Option(names = "--actor", description = "Only this actor's executions.")
    String actor;

    @Option(names = "--limit", defaultValue = "50", description = "At most this many (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print records as a JSON array.")
    boolean json;

    @Override
    public void run() {
      if (limit < 1) {
        throw new CliException("--limit must be at least 1");
      }
      try (TemporalConnection connection = temporal.connect()) {
        ExecutionDirectory directory = new ExecutionDirectory(connection);
        List<ExecutionLocation> found;
        try {
          found = ExecutionSearch.list(connection, directory, query, actor, limit);
        } catch (io.grpc.StatusRuntimeException e) {
          throw new CliException("list failed: " + e.getStatus().getCode() + " " + e.getStatus().getDescription());
        }
        PrintWriter out = spec.commandLine().getOut();
        List<Listed> rows = rows(directory, found);
        if (json) {
          out.println(toJson(jsonItems(rows)));
          return;
        }
        out.printf("%-30s %-34s %-22s %-18s %s%n", "EXECUTION", "STATE", "TOOL", "ACTOR", "ACCEPTED");
        for (Listed row : rows) {
          ExecutionRecord r = row.record();
          if (r == null) {
            out.println(InertText.of(String.format("%-30s %-34s %s", row.location().executionId(), "unreadable", row.unreadable()
                + " (" + CommandName.command("executions show " + row.location().executionId()) + ")")));
          } else {
            out.println(InertText.of(String.format("%-30s %-34s %-22s %-18s %s", r.executionId(), r.view(), r.tool(), r.actor(),
                r.acceptedAt())));
          }
        }
      }
    }

    /** One unreadable record (a stuck workflow) never breaks the list: it is listed with the reason. */
    private static List<Listed> rows(ExecutionDirectory directory, List<ExecutionLocation> found) {
      List<Listed> rows = new java.util.ArrayList<>();
      for (ExecutionLocation location : found) {
        try {
          rows.add(new Listed(location, directory.record(location), null));
        } catch (RuntimeException e) {
          if (TemporalErrors.isDecodeFailure(e)) {
            throw e; // wrong or missing payload keys: every row would fail; CliErrors names the key directory
          }
          rows.add(new Listed(location, null, reason(e)));
        }
      }
      return rows;
    }

    /** The rows for {@code --json}: each record, or where it lives and why it could not be read. */
    private static List<Object> jsonItems(List<Listed> rows) {
      List<Object> items = new java.util.ArrayList<>();
      for (Listed row : rows) {
        if (row.record() != null) {
          items.add(row.record());
        } else {
          java.util.Map<String, Object> item = new java.util.LinkedHashMap<>();
          item.put("executionId", row.location().executionId());
          item.put("workflowId", row.location().workflowId());
          item.put("runId", row.location().runId());
          item.put("unreadable", row.unreadable());
          items.add(item);
        }
      }
      return items;
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "Show one execution record.")
  static final class ShowCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "EXECUTION_ID", description = "The act_… id.")
    String executionId;

    @Option(names = "--json", description = "Print the record as JSON.")
    boolean json;

    @Override
    public void run() {
      try (TemporalConnection connection = temporal.connect()) {
        ExecutionRecord record = load(connection, executionId);
        PrintWriter out = spec.commandLine().getOut();
        out.println(json ? toJson(record) : describe(record));
      }
    }
  }

  @Command(name = "resolve", mixinStandardHelpOptions = true,
      description = "Resolve an execution in needs_review: it completed, it failed, or it provably did not run and may be dispatched again.")
  static final class ResolveCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "EXECUTION_ID", description = "The act_… id.")
    String executionId;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Decision decision;

    static final class Decision {
      @Option(names = "--completed", required = true, description = "The action happened (you checked the target).") boolean completed;
      @Option(names = "--failed", required = true, description = "The action failed or did not happen; do not send it again.") boolean failed;
      @Option(names = "--redispatch", required = true, description = "The action provably did not run: send it again under the same execution id.") boolean redispatch;
    }

    @Option(names = "--reason", required = true, description = "Why; recorded on the execution and in the journal.")
    String reason;

    @Mixin OperatorKeyOptions operator;

    @Override
    public void run() {
      if (reason.isBlank()) {
        throw new CliException("--reason must not be empty");
      }
      Resolution.Decision d = decision.completed ? Resolution.Decision.COMPLETED
          : decision.failed ? Resolution.Decision.FAILED : Resolution.Decision.REDISPATCH;
      io.onceport.activity.operator.OperatorKey key = operator.load();
      java.time.Duration validity = operator.validity();
      try (TemporalConnection connection = temporal.connect()) {
        ExecutionRecord record = load(connection, executionId);
        if (record.state() != io.onceport.workflow.execution.ExecutionState.NEEDS_REVIEW) {
          throw new CliException("execution " + executionId + " is " + record.view() + ", not needs_review; nothing to resolve"
              + (record.state().isTerminal() ? " (it is finished: `" + CommandName.command("executions show " + executionId) + "` prints its record)" : ""));
        }
        ToolExecutionWorkflow stub = connection.client().newWorkflowStub(
            ToolExecutionWorkflow.class, record.workflowId(), Optional.of(record.runId()));
        io.onceport.workflow.operator.SignedDecision signed = OperatorCommand.sign(key,
            io.onceport.workflow.operator.DecisionBinding.RESOLUTION, record.executionId(), record.fingerprint(),
            d.name().toLowerCase(java.util.Locale.ROOT), reason, validity);
        ExecutionRecord after;
        try {
          after = stub.resolve(new Resolution(d, reason, key.operator(), signed.statement(), signed.signature()));
        } catch (WorkflowUpdateException e) {
          throw new CliException(failureMessage(e));
        }
        spec.commandLine().getOut().println(InertText.of(executionId + ": " + after.view() + " — " + CommandName.hint(after.message())));
      }
    }
  }

  /** Why an update or signal failed, for an operator: the workflow's own refusal, or what Temporal said. */
  static String failureMessage(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure app) {
        return app.getOriginalMessage();
      }
      if (t instanceof io.temporal.client.WorkflowNotFoundException) {
        return "the workflow closed before the decision arrived (it is no longer open); nothing was changed";
      }
    }
    return "Temporal refused the request: " + TemporalErrors.innermost(e);
  }

  static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (Exception e) {
      throw new CliException("cannot render JSON: " + e.getMessage());
    }
  }

  /**
   * A plain-text view of a record for operators. Built as lines and rendered with {@link
   * InertText#lines}: agents write much of a record (arguments, JSON-RPC ids, session and client
   * names, run ids) and targets the rest of it (messages), and neither may add a line of its own or
   * act on the operator's terminal.
   */
  static String describe(ExecutionRecord r) {
    List<String> lines = new ArrayList<>();
    lines.add("execution   " + r.executionId());
    lines.add("state       " + r.view() + "  (state " + r.state().wireName() + ", outcome " + r.outcome().wireName()
        + ", delivery " + r.delivery().wireName() + ")");
    lines.add("message     " + CommandName.hint(r.message()));
    lines.add("tool        " + r.tool() + " (" + r.replayClass() + ", " + r.channel() + ")");
    lines.add("actor       " + r.actor() + "  scope " + r.intentScope());
    lines.add("target      " + (r.method() == null ? "" : r.method() + " ") + r.target());
    if (r.credentialRef() != null) {
      lines.add("credential  " + r.credentialRef());
    }
    lines.add("arguments   " + r.arguments());
    lines.add("fingerprint " + r.fingerprint());
    if (r.intentKey() != null) {
      lines.add("intent key  " + r.intentKey());
    }
    lines.add("workflow    " + r.workflowId() + " / " + r.runId());
    addTime(lines, "accepted", r.acceptedAt());
    addTime(lines, "authorized", r.authorizedAt());
    addTime(lines, "dispatched", r.dispatchedAt());
    addTime(lines, "completed", r.completedAt());
    addTime(lines, "delivered", r.deliveredAt());
    addAuthorization(lines, r);
    if (r.targetStatus() != null) {
      lines.add("target status " + r.targetStatus());
    }
    if (r.exitStatus() != null) {
      lines.add("exit status " + r.exitStatus());
    }
    if (r.resultReference() != null) {
      lines.add("result      " + r.resultReference());
    }
    addEvidence(lines, r);
    return InertText.lines(lines).stripTrailing();
  }

  /** How the ladder decided, by whom and under which rule, and until when a waiting decision holds. */
  private static void addAuthorization(List<String> lines, ExecutionRecord r) {
    if (r.authorization() != null) {
      lines.add("authorization " + r.authorization().decision() + " by " + r.authorization().by()
          + " (rule " + r.authorization().rule() + ")"
          + (r.authorization().reason() == null || r.authorization().reason().isEmpty() ? "" : ": " + r.authorization().reason()));
      if (r.authorization().expiresAt() != null) {
        lines.add("expires     " + r.authorization().expiresAt());
      }
    }
  }

  /** The evidence: each send and status check, the review, each call, and the transitions in order. */
  private static void addEvidence(List<String> lines, ExecutionRecord r) {
    lines.add("dispatches  " + r.dispatchAttempts());
    if (r.reset() != null) {
      lines.add("reset       " + r.reset().number() + " (this run " + r.reset().runId() + ", its history began with run "
          + r.reset().originalRunId() + "); the journal proves " + r.reset().sends().size() + " send(s)");
    }
    for (ExecutionRecord.Send s : r.sends()) {
      lines.add("  send " + s.attempt() + " " + s.observed() + (s.status() == null ? "" : " " + s.status()) + " " + s.startedAt()
          + " → " + s.endedAt() + " key " + s.key() + (s.decision() == null ? "" : ", then " + s.decision())
          + (s.detail() == null || s.detail().isEmpty() ? "" : " (" + s.detail() + ")"));
    }
    for (ExecutionRecord.StatusCheck c : r.statusChecks()) {
      lines.add("status check " + c.at() + " " + c.verdict() + " " + c.detail());
    }
    if (r.review() != null) {
      lines.add("review      " + r.review().decision() + " by " + r.review().by() + ": " + r.review().reason());
    }
    ExecutionsVerifyCommand.describe(lines, r.verification());
    lines.add("calls       " + r.calls().size());
    for (AttachedCall c : r.calls()) {
      lines.add("  " + c.receivedAt() + (c.retry() ? " retry " : " first ") + "jsonrpc id " + c.jsonRpcId()
          + " session " + c.sessionId() + " client " + c.clientInfo()
          + " delivery " + (c.delivery() == null ? "-" : c.delivery()));
    }
    for (ExecutionRecord.Transition t : r.transitions()) {
      lines.add("  " + t.at() + " " + t.state() + (t.detail().isEmpty() ? "" : " — " + CommandName.hint(t.detail())));
    }
  }

  private static void addTime(List<String> lines, String label, String at) {
    if (at != null) {
      lines.add(String.format("%-11s %s", label, at));
    }
  }
}
