package io.onceport.app.cli;

import io.onceport.app.cli.SessionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.session.AgentSessionWorkflow;
import io.onceport.workflow.session.SessionDecision;
import io.onceport.workflow.session.SessionRecord;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code onceport sessions list|show|authorize|deny|revoke}: agent sessions and their authorization
 * (rung 4), and grants of an agent for a period ({@code authorize --agent ACTOR --for P7D}).
 */
@Command(
    name = "sessions",
    mixinStandardHelpOptions = true,
    description = "Inspect agent sessions and authorize or deny them.",
    subcommands = {
      SessionsCommand.ListCommand.class, SessionsCommand.ShowCommand.class,
      SessionsCommand.AuthorizeCommand.class, SessionsCommand.DenyCommand.class, SessionsCommand.RevokeCommand.class})
public final class SessionsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static SessionRecord load(SessionDirectory directory, TemporalConnection connection, String sessionId) {
    return directory.find(sessionId).orElseThrow(() ->
        new CliException("no session " + sessionId + " in namespace " + connection.namespace() + " at " + connection.target()));
  }

  /**
   * The sessions of this deployment: session workflow ids are keyed with the fingerprint key, read
   * from {@code --data} (default {@code $ONCEPORT_DATA} or {@code ./data}) when it is there;
   * without it sessions are found by looking through the session runs.
   */
  static SessionDirectory directory(TemporalConnection connection, TemporalOptions temporal) {
    java.nio.file.Path data = temporal.data();
    if (java.nio.file.Files.exists(data.resolve("keys").resolve("fingerprint.key"))) {
      try {
        io.onceport.frontend.fingerprint.FingerprintKey key = io.onceport.frontend.fingerprint.FingerprintKey.loadOrCreate(data);
        return new SessionDirectory(connection, io.onceport.workflow.session.SessionWorkflowIds.keyed(key::hmac));
      } catch (java.io.IOException e) {
        throw new CliException(e.getMessage());
      }
    }
    return new SessionDirectory(connection);
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List agent sessions, newest first.")
  static final class ListCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

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
        List<SessionRecord> sessions = directory(connection, temporal).list(limit);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          out.println(ExecutionsCommand.toJson(sessions));
          return;
        }
        out.printf("%-44s %-18s %-18s %-22s %-8s %s%n", "SESSION", "STATUS", "ACTOR", "CLIENT", "WAITING", "STARTED");
        for (SessionRecord s : sessions) {
          // Session ids and client names come from agents: one row each, nothing a terminal acts on.
          out.println(InertText.of(String.format("%-44s %-18s %-18s %-22s %-8d %s", s.sessionId(), s.status(), s.actor(),
              s.clientInfo() == null ? "-" : s.clientInfo(), s.waiting().size(), s.startedAt() == null ? "-" : s.startedAt())));
        }
      }
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "Show one agent session.")
  static final class ShowCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "SESSION_ID", description = "The session id as `sessions list` shows it.")
    String sessionId;

    @Option(names = "--json", description = "Print the record as JSON.")
    boolean json;

    @Override
    public void run() {
      try (TemporalConnection connection = temporal.connect()) {
        SessionDirectory directory = directory(connection, temporal);
        SessionRecord record = load(directory, connection, sessionId);
        // The workflow id (keyed, not derivable by an agent) is what the Temporal UI needs to send a decision.
        String workflow = directory.workflowIdOf(sessionId).map(id -> "\nworkflow    " + InertText.of(id)).orElse("");
        spec.commandLine().getOut().println(json ? ExecutionsCommand.toJson(record) : describe(record) + workflow);
      }
    }
  }

  @Command(name = "authorize", mixinStandardHelpOptions = true,
      description = {"Authorize an agent session: its waiting executions continue, later calls pass rung 4.",
          "With --agent ACTOR --for DURATION instead: every new session of ACTOR is authorized for that period (a grant: "
              + "signed, journalled, listed by `sessions list` as grant:ACTOR, ended by `sessions revoke --agent ACTOR`), "
              + "so scripts do not wait for each new session. A static-token agent's grant ends with its token (agent remove)."})
  static final class AuthorizeCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "SESSION_ID", arity = "0..1", description = "The session id as `sessions list` shows it.")
    String sessionId;

    @Option(names = "--agent", paramLabel = "ACTOR",
        description = "Grant every session of ACTOR (e.g. agent:deployer, or an OAuth actor oauth:ISSUER/SUBJECT) instead of one session.")
    String agent;

    @Option(names = "--for", paramLabel = "DURATION", description = "How long the grant of --agent lasts (ISO-8601, e.g. P7D, PT8H; at most P90D).")
    java.time.Duration period;

    @Option(names = "--task-queue", defaultValue = "onceport",
        description = "The workers' task queue, where a grant's workflow runs (default: ${DEFAULT-VALUE}).")
    String taskQueue;

    @Option(names = "--yes", description = "Do not ask for confirmation (scripts).")
    boolean yes;

    @Mixin OperatorKeyOptions operator;

    @Option(names = "--reason", defaultValue = "", description = "Why; signed and recorded in the sessions journal.")
    String reason;

    @Override
    public void run() {
      if (agent != null || period != null) {
        if (sessionId != null || agent == null || period == null) {
          throw new CliException("authorize either one SESSION_ID, or an agent for a period: --agent ACTOR --for DURATION (e.g. "
              + "--agent agent:deployer --for P7D)");
        }
        AgentGrants.grant(spec, temporal, agent, period, taskQueue, reason, operator, yes);
        return;
      }
      if (sessionId == null) {
        throw new CliException("name the session to authorize (SESSION_ID, as `sessions list` shows it), or grant an agent for a "
            + "period with --agent ACTOR --for DURATION");
      }
      decide(spec, temporal, sessionId, true, reason, operator, yes);
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true,
      description = "End the grant of --agent ACTOR (`sessions authorize --agent`): its new sessions wait for an operator again.")
  static final class RevokeCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Option(names = "--agent", paramLabel = "ACTOR", required = true, description = "The actor whose grant ends.")
    String agent;

    @Option(names = "--reason", required = true, description = "Why; signed and recorded in the sessions journal.")
    String reason;

    @Option(names = "--yes", description = "Do not ask for confirmation (scripts).")
    boolean yes;

    @Mixin OperatorKeyOptions operator;

    @Override
    public void run() {
      if (reason.isBlank()) {
        throw new CliException("--reason must not be empty");
      }
      AgentGrants.revoke(spec, temporal, agent, reason, operator, yes);
    }
  }

  @Command(name = "deny", mixinStandardHelpOptions = true,
      description = "Deny an agent session: its waiting executions are rejected, later calls too.")
  static final class DenyCommand implements Runnable {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Parameters(paramLabel = "SESSION_ID", description = "The session id as `sessions list` shows it.")
    String sessionId;

    @Option(names = "--reason", required = true, description = "Why; recorded and returned to the agent.")
    String reason;

    @Option(names = "--yes", description = "Do not ask for confirmation (scripts).")
    boolean yes;

    @Mixin OperatorKeyOptions operator;

    @Override
    public void run() {
      if (reason.isBlank()) {
        throw new CliException("--reason must not be empty");
      }
      decide(spec, temporal, sessionId, false, reason, operator, yes);
    }
  }

  static void decide(CommandSpec spec, TemporalOptions temporal, String sessionId, boolean authorize, String reason,
      OperatorKeyOptions operator, boolean yes) {
    PrintWriter out = spec.commandLine().getOut();
    io.onceport.activity.operator.OperatorKey key = operator.load(); // no key, no decision: before anything is asked
    java.time.Duration validity = operator.validity();
    try (TemporalConnection connection = temporal.connect()) {
      SessionDirectory directory = directory(connection, temporal);
      SessionRecord record = load(directory, connection, sessionId);
      out.println(describe(record));
      out.flush();
      Confirmation.require(yes, InertText.of((authorize ? "Authorize" : "Deny") + " session " + sessionId + " of " + record.actor() + "?"));
      AgentSessionWorkflow stub = directory.stub(sessionId);
      // Bound to the session's actor as well as its id: a workflow refuses it for anyone else's session.
      io.onceport.workflow.operator.SignedDecision signed = OperatorCommand.signSession(key, record.sessionId(), record.actor(),
          authorize ? io.onceport.workflow.operator.DecisionBinding.AUTHORIZE : io.onceport.workflow.operator.DecisionBinding.DENY,
          reason, validity);
      SessionDecision decision = new SessionDecision(key.operator(), reason, signed.statement(), signed.signature());
      SessionRecord after;
      try {
        after = authorize ? stub.authorize(decision) : stub.deny(decision);
      } catch (WorkflowUpdateException | WorkflowServiceException e) {
        throw new CliException(ExecutionsCommand.failureMessage(e));
      }
      out.println(InertText.of(sessionId + ": " + after.status() + " by " + after.authorization().by()
          + "; " + record.waiting().size() + " waiting execution(s) told"));
    }
  }

  /** A plain-text view of a session, as lines rendered with {@link InertText#lines} (client names come from agents). */
  static String describe(SessionRecord s) {
    List<String> lines = new ArrayList<>();
    lines.add("session     " + s.sessionId());
    lines.add("status      " + s.status());
    lines.add("actor       " + s.actor());
    lines.add("client      " + (s.clientInfo() == null ? "-" : s.clientInfo())
        + "  protocol " + (s.protocolVersion() == null ? "-" : s.protocolVersion()));
    lines.add("remote      " + (s.remoteAddress() == null ? "-" : s.remoteAddress()));
    lines.add("started     " + (s.startedAt() == null ? "-" : s.startedAt()));
    if (s.endedAt() != null) {
      lines.add("ended       " + s.endedAt() + (s.endReason() == null || s.endReason().isEmpty() ? "" : " (" + s.endReason() + ")"));
    }
    if (s.authorization() != null) {
      lines.add("decision    " + s.authorization().decision() + " by " + s.authorization().by() + " at " + s.authorization().at()
          + (s.authorization().reason().isEmpty() ? "" : ": " + s.authorization().reason()));
    }
    lines.add("waiting     " + s.waiting().size() + " execution(s)");
    for (String w : s.waiting()) {
      lines.add("  " + w);
    }
    return InertText.lines(lines).stripTrailing();
  }
}
