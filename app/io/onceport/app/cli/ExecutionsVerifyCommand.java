package io.onceport.app.cli;

import static io.onceport.app.cli.ExecutionsCommand.failureMessage;
import static io.onceport.app.cli.ExecutionsCommand.load;

import io.onceport.activity.operator.OperatorKey;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.cli.CommandName;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ToolExecutionWorkflow;
import io.onceport.workflow.execution.VerificationDecision;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.SignedDecision;
import io.temporal.client.WorkflowUpdateException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code onceport executions verify}: an operator's signed verdict on the effect of an execution
 * kept {@code until_verified}, and how {@code executions show} lists a verification.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Settle the verification of an execution kept until verified (attach_window: until_verified), while its "
        + "checks are pending or after they gave up: its effect is there (--verified: identical calls attach for the "
        + "contract's verified_window, then one is a new intent) or it is absent (--not-applied: the replay class decides; "
        + "an irreversible action waits for `executions resolve`, never re-sent automatically).",
        "The verdict is a statement signed with your operator key and journalled."})
public final class ExecutionsVerifyCommand implements Runnable {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Parameters(paramLabel = "EXECUTION_ID", description = "The act_… id.")
  String executionId;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Verdict verdict;

  static final class Verdict {
    @Option(names = "--verified", required = true, description = "The effect is there (you checked the target).") boolean verified;
    @Option(names = "--not-applied", required = true, description = "The effect is absent (you checked the target).") boolean notApplied;
  }

  @Option(names = "--reason", required = true, description = "Why; recorded on the execution and in the journal.")
  String reason;

  @Mixin OperatorKeyOptions operator;

  @Override
  public void run() {
    if (reason.isBlank()) {
      throw new CliException("--reason must not be empty");
    }
    VerificationDecision.Decision d = verdict.verified ? VerificationDecision.Decision.VERIFIED
        : VerificationDecision.Decision.NOT_APPLIED;
    OperatorKey key = operator.load();
    Duration validity = operator.validity();
    try (TemporalConnection connection = temporal.connect()) {
      ExecutionRecord record = load(connection, executionId);
      ExecutionRecord.Verification v = record.verification();
      if (v == null || !(v.pending() || ExecutionRecord.Verification.GIVEN_UP.equals(v.state()))) {
        throw new CliException("execution " + executionId + " is " + record.view() + "; "
            + (v == null ? "it is not kept until verified (or its outcome is not known yet)" : "its verification is " + v.state())
            + ", nothing to verify");
      }
      ToolExecutionWorkflow stub = connection.client().newWorkflowStub(
          ToolExecutionWorkflow.class, record.workflowId(), Optional.of(record.runId()));
      SignedDecision signed = OperatorCommand.sign(key,
          DecisionBinding.VERIFICATION, record.executionId(), record.fingerprint(),
          d.wireName(), reason, validity);
      ExecutionRecord after;
      try {
        after = stub.verify(new VerificationDecision(d, reason, key.operator(), signed.statement(), signed.signature()));
      } catch (WorkflowUpdateException e) {
        throw new CliException(failureMessage(e));
      }
      spec.commandLine().getOut().println(InertText.of(executionId + ": " + after.view() + " — " + CommandName.hint(after.message())));
    }
  }

  /** attach_window: until_verified — where the verification stands and what each kept check saw. */
  static void describe(List<String> lines, ExecutionRecord.Verification v) {
    if (v == null) {
      return;
    }
    lines.add("verification " + v.state() + " — " + v.target() + ", since " + v.since()
        + (v.nextCheckAt() == null ? "" : ", next check " + v.nextCheckAt())
        + (v.settledAt() == null ? ", gives up " + v.giveUpAt() : ", settled " + v.settledAt()));
    if (v.decision() != null) {
      lines.add("  verdict " + v.decision().decision() + " by " + v.decision().by() + ": " + v.decision().reason());
    }
    int shown = v.checks().size();
    lines.add("  checks " + v.checkCount() + (shown < v.checkCount() ? " (the latest " + shown + " here; every one in the journal)" : ""));
    for (ExecutionRecord.VerificationCheck c : v.checks()) {
      StringBuilder held = new StringBuilder();
      for (var h : c.held()) {
        held.append(held.length() == 0 ? "" : "; ").append(h.condition()).append(' ').append(h.pointer()).append('=')
            .append(h.value() == null ? "(missing)" : h.value()).append(" expected ")
            .append(h.expected() == null ? "(unknown)" : h.expected());
      }
      lines.add("  check " + c.number() + " " + c.at() + " " + c.verdict() + (c.status() == null ? "" : " " + c.status())
          + (held.length() == 0 ? "" : " [" + held + "]") + (c.detail() == null || c.detail().isEmpty() ? "" : " — " + c.detail()));
    }
  }
}
