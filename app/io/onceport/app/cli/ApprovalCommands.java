package io.onceport.app.cli;

import io.onceport.activity.operator.OperatorKey;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.SignedDecision;
import io.onceport.workflow.execution.ApprovalDecision;
import io.onceport.workflow.execution.AttachedCall;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code onceport approve|deny EXECUTION_ID}: an operator's decision on an execution awaiting
 * approval (approve-each-use credential). The decision names the execution id and the fingerprint
 * read from the record shown, so it cannot land on a different request; it is the workflow's
 * {@code decideApproval} update, carrying a statement signed with the operator's key
 * ({@link OperatorKeyOptions}) that the workflow verifies before it acts.
 */
final class ApprovalCommands {
  private ApprovalCommands() {}

  @Command(name = "approve", mixinStandardHelpOptions = true,
      description = "Approve one execution that awaits approval: shows its record, asks, then lets it dispatch.")
  static final class ApproveCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "EXECUTION_ID", description = "The act_… id.")
    String executionId;

    @Option(names = "--yes", description = "Do not ask for confirmation (scripts).")
    boolean yes;

    @Mixin OperatorKeyOptions operator;

    @Option(names = "--reason", defaultValue = "", description = "Why; signed, recorded on the execution and in the journal.")
    String reason;

    @Override
    public void run() {
      decide(spec, temporal, executionId, true, reason, operator, yes);
    }
  }

  @Command(name = "deny", mixinStandardHelpOptions = true,
      description = "Deny one execution that awaits approval: it is rejected and nothing is dispatched.")
  static final class DenyCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "EXECUTION_ID", description = "The act_… id.")
    String executionId;

    @Option(names = "--reason", required = true, description = "Why; recorded on the execution, returned to the agent.")
    String reason;

    @Option(names = "--yes", description = "Do not ask for confirmation (scripts).")
    boolean yes;

    @Mixin OperatorKeyOptions operator;

    @Override
    public void run() {
      if (reason.isBlank()) {
        throw new CliException("--reason must not be empty");
      }
      decide(spec, temporal, executionId, false, reason, operator, yes);
    }
  }

  static void decide(CommandSpec spec, TemporalOptions temporal, String executionId, boolean approve, String reason,
      OperatorKeyOptions operator, boolean yes) {
    PrintWriter out = spec.commandLine().getOut();
    OperatorKey key = operator.load(); // before anything is shown or asked: no key, no decision
    java.time.Duration validity = operator.validity();
    try (TemporalConnection connection = temporal.connect()) {
      ExecutionRecord record = ExecutionsCommand.load(connection, executionId);
      if (record.state() != ExecutionState.AWAITING_APPROVAL) {
        throw new CliException("execution " + executionId + " is " + record.view() + ", not awaiting approval; nothing to "
            + (approve ? "approve" : "deny"));
      }
      out.println(summary(record));
      out.println();
      out.println(ExecutionsCommand.describe(record));
      out.flush();
      Confirmation.require(yes, InertText.of((approve ? "Approve" : "Deny") + " execution " + executionId + " (" + record.tool()
          + " on " + record.target() + ")?"));
      ToolExecutionWorkflow stub = connection.client().newWorkflowStub(
          ToolExecutionWorkflow.class, record.workflowId(), Optional.of(record.runId()));
      SignedDecision signed = OperatorCommand.sign(key, DecisionBinding.APPROVAL, record.executionId(), record.fingerprint(),
          approve ? DecisionBinding.APPROVE : DecisionBinding.DENY, reason, validity);
      ExecutionRecord after;
      try {
        after = stub.decideApproval(new ApprovalDecision(record.executionId(), record.fingerprint(), approve, reason, key.operator(),
            signed.statement(), signed.signature()));
      } catch (WorkflowUpdateException | WorkflowServiceException e) {
        throw new CliException(ExecutionsCommand.failureMessage(e));
      }
      out.println(InertText.of(executionId + ": " + after.view() + " — " + after.message()));
    }
  }

  /** The lines an operator decides on: what, where, since when, how often the agent asked. */
  static String summary(ExecutionRecord r) {
    AttachedCall first = r.calls().isEmpty() ? null : r.calls().get(0);
    long retries = r.calls().stream().filter(AttachedCall::retry).count();
    List<String> lines = new ArrayList<>();
    lines.add("approval requested for " + r.executionId());
    lines.add("  tool         " + r.tool() + " as " + r.actor());
    lines.add("  target       " + (r.method() == null ? "" : r.method() + " ") + r.target());
    lines.add("  credential   " + r.credentialRef());
    lines.add("  arguments    " + r.arguments());
    lines.add("  fingerprint  " + r.fingerprint());
    lines.add("  first request " + (first == null ? r.acceptedAt() : first.receivedAt()));
    lines.add("  retries      " + retries + " attached (a retry never asks again)");
    if (r.authorization() != null && r.authorization().expiresAt() != null) {
      lines.add("  expires      " + r.authorization().expiresAt());
    }
    // The operator decides on what this shows: an agent's arguments may not forge a line or act on the terminal.
    return InertText.lines(lines).stripTrailing();
  }
}
