package io.onceport.app.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.ids.AgentSessionId;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.SignedDecision;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.SessionDecision;
import io.onceport.workflow.session.SessionRecord;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code sessions authorize --agent ACTOR --for DURATION} and {@code sessions revoke --agent ACTOR}:
 * an operator authorizes every session of an agent for a period, so scripts that open a new MCP
 * session per run do not wait for an operator each time (issue 29 item 6).
 *
 * <p>A grant is a session workflow of its own, {@code grant:ACTOR~GENERATION} ({@link
 * AgentSessionId.Kind#GRANT}), so it is signed, verified, journalled and listed like a session's
 * authorization. The statement names the grant <em>and its end</em> ({@code
 * grant:ACTOR~GENERATION/2026-12-13T17:00:00Z}): the period is signed by the operator and cannot be
 * stretched. For a static-token agent the grant names the token's credential generation (read from
 * {@code agents.json} under {@code --data}): when the token is removed, the grant no longer
 * matches any session, and a re-added agent starts without it. An actor not in {@code agents.json}
 * (an OAuth actor, {@code oauth:ISSUER/SUBJECT}) is granted as is.
 */
final class AgentGrants {
  /** The longest grant: a standing authorization should be looked at again within a quarter. */
  static final Duration MAX_PERIOD = Duration.ofDays(90);

  private AgentGrants() {}

  /** The grant id of {@code actor}: with its token's generation when {@code agents.json} has it. */
  static String grantId(TemporalOptions temporal, String actor) {
    Optional<String> generation;
    try {
      generation = new AgentRegistry(temporal.data()).generation(actor);
    } catch (RuntimeException e) {
      throw new CliException("cannot read the agents of " + temporal.data() + ": " + e.getMessage());
    }
    return AgentSessionId.grant(actor, generation.orElse(null)).id();
  }

  static void grant(CommandSpec spec, TemporalOptions temporal, String actor, Duration period, String taskQueue, String reason,
      OperatorKeyOptions operator, boolean yes) {
    if (actor.isBlank()) {
      throw new CliException("--agent must name an actor, e.g. agent:deployer");
    }
    if (period.isNegative() || period.isZero() || period.compareTo(MAX_PERIOD) > 0) {
      throw new CliException("--for must be between PT1M and " + MAX_PERIOD + " (e.g. P7D), not " + period);
    }
    PrintWriter out = spec.commandLine().getOut();
    OperatorKey key = operator.load(); // no key, no grant: before anything is asked
    String grantId = grantId(temporal, actor);
    AgentSessionId grant = AgentSessionId.parse(grantId).orElseThrow();
    String until = Instant.now().plus(period).truncatedTo(ChronoUnit.SECONDS).toString();
    String shown = InertText.of(actor);
    Confirmation.require(yes, InertText.of("Authorize every session of " + actor + " until " + until + "?"),
        "sessions authorize --agent " + shown + " --for " + period + " --yes");
    String subject = AgentSessionId.grantUntil(grant.actor(), grant.generation(), until).id();
    SignedDecision signed = OperatorCommand.signSession(key, subject, actor, DecisionBinding.AUTHORIZE, reason, operator.validity());
    try (TemporalConnection connection = temporal.connect()) {
      requirePolled(connection, taskQueue);
      AgentSessionWorkflow stub = SessionsCommand.directory(connection, temporal).grant(grantId, actor, taskQueue,
          "onceport sessions authorize --agent");
      SessionRecord after;
      try {
        after = stub.authorize(new SessionDecision(key.operator(), reason, signed.statement(), signed.signature(), until));
      } catch (WorkflowUpdateException | WorkflowServiceException e) {
        throw new CliException(ExecutionsCommand.failureMessage(e));
      }
      out.println(InertText.of(grantId + ": " + after.status() + " by " + after.authorization().by()
          + "; every new session of " + actor + " is authorized until " + until + " (end it: onceport sessions revoke --agent "
          + actor + " --reason TEXT)"));
    }
  }

  /**
   * The grant's workflow runs on the workers' task queue; without a worker there the signed update
   * would wait for ever, so the command says which queue it looked at instead.
   */
  private static void requirePolled(TemporalConnection connection, String taskQueue) {
    int pollers;
    try {
      pollers = connection.stubs().blockingStub().describeTaskQueue(DescribeTaskQueueRequest.newBuilder()
          .setNamespace(connection.namespace()).setTaskQueue(TaskQueue.newBuilder().setName(taskQueue).build())
          .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW).build()).getPollersCount();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return; // the embedded engine cannot tell: go on
      }
      throw e;
    }
    if (pollers == 0) {
      throw new CliException("no worker polls task queue " + taskQueue + " in namespace " + connection.namespace() + " at "
          + connection.target() + ": a grant runs there; name the workers' queue with --task-queue (serve's default: onceport)");
    }
  }

  static void revoke(CommandSpec spec, TemporalOptions temporal, String actor, String reason, OperatorKeyOptions operator,
      boolean yes) {
    PrintWriter out = spec.commandLine().getOut();
    OperatorKey key = operator.load();
    String grantId = grantId(temporal, actor);
    try (TemporalConnection connection = temporal.connect()) {
      SessionDirectory directory = SessionsCommand.directory(connection, temporal);
      SessionRecord record = directory.find(grantId).filter(r -> r.endedAt() == null).orElseThrow(() ->
          new CliException("no grant of " + actor + " (" + grantId + ") in namespace " + connection.namespace()
              + "; `onceport sessions list` shows grants as grant:ACTOR"));
      out.println(SessionsCommand.describe(record));
      out.flush();
      Confirmation.require(yes, InertText.of("Revoke the grant of " + actor + "?"),
          "sessions revoke --agent " + InertText.of(actor) + " --reason TEXT --yes");
      SignedDecision signed = OperatorCommand.signSession(key, grantId, actor, DecisionBinding.DENY, reason, operator.validity());
      SessionRecord after;
      try {
        after = directory.stub(grantId).deny(new SessionDecision(key.operator(), reason, signed.statement(), signed.signature()));
      } catch (WorkflowUpdateException | WorkflowServiceException e) {
        throw new CliException(ExecutionsCommand.failureMessage(e));
      }
      out.println(InertText.of(grantId + ": revoked (" + after.status() + ") by " + after.authorization().by()
          + "; new sessions of " + actor + " wait for an operator again"));
    }
  }
}
