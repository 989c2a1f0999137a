package io.onceport.app.runtime;

import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthorities;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.activity.auth.TargetPolicy;
import io.onceport.activity.vault.CredentialResolver;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.journal.Journals;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.activity.ssh.SshChannel;
import io.onceport.activity.vault.VaultLockWatcher;
import io.onceport.activity.vault.VaultService;
import io.onceport.app.runtime.AuthorizationRechecks;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.app.engine.WorkerHost;
import io.onceport.activity.dispatch.TracedChannel;
import io.onceport.shared.trace.Tracing;
import io.onceport.app.engine.WorkerTuning;
import io.onceport.app.versioning.WorkerVersioning;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The worker role: journals, vault, channels, the authorization ladder, operator-decision
 * verification against {@code <data>/operators.json} and the activities that touch the world,
 * polling one task queue. Everything a worker writes lives under its data
 * directory; {@code journalWriter} names its journal segments (one writer per process).
 */
public final class WorkerRuntime implements AutoCloseable {
  private final Journals journals;
  private final VaultService vault;
  private final VaultLockWatcher lockWatcher;
  private final DispatchActivitiesImpl dispatch;
  private final WorkerHost host;
  private AutoCloseable answering = () -> {};
  private final io.onceport.activity.mcp.McpUpstreams mcpUpstreams;

  private WorkerRuntime(Journals journals, VaultService vault, VaultLockWatcher lockWatcher, DispatchActivitiesImpl dispatch, WorkerHost host,
      io.onceport.activity.mcp.McpUpstreams mcpUpstreams) {
    this.mcpUpstreams = mcpUpstreams;
    this.journals = journals;
    this.vault = vault;
    this.lockWatcher = lockWatcher;
    this.dispatch = dispatch;
    this.host = host;
  }

  /**
   * @param vault the vault service, or null when no vault is configured (credentials then fail
   *     closed with a clear reason)
   * @param sessionPolicy {@code operator} or {@code auto}: for calls whose front end named none
   * @param journalWriter this process's journal segment name, or null for the host name
   */
  public static WorkerRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, VaultService vault,
      String sessionPolicy, Duration approvalTimeout, String journalWriter) {
    return start(connection, taskQueue, dataDir, vault, sessionPolicy, approvalTimeout, journalWriter, WorkerTuning.DEFAULT);
  }

  /** As above, with the worker's workflow cache and thread bounds; unversioned (a worker of a test or bench). */
  public static WorkerRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, VaultService vault,
      String sessionPolicy, Duration approvalTimeout, String journalWriter, WorkerTuning tuning) {
    return start(connection, taskQueue, dataDir, vault, sessionPolicy, approvalTimeout, journalWriter, tuning,
        WorkerVersioning.unversioned("an in-process worker"));
  }

  /** As above, as a version of a Worker Deployment or unversioned ({@code worker} and {@code serve}). */
  public static WorkerRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, VaultService vault,
      String sessionPolicy, Duration approvalTimeout, String journalWriter, WorkerTuning tuning, WorkerVersioning versioning) {
    Journals journals = Journals.open(dataDir, journalWriter == null ? Journals.defaultWriterId() : journalWriter);
    CredentialResolver credentials = vault == null ? CredentialResolver.NONE : vault;
    io.onceport.activity.mcp.McpUpstreams mcpUpstreams = new io.onceport.activity.mcp.McpUpstreams();
    Tracing tracing = connection.tracing();
    DispatchActivitiesImpl dispatch = new DispatchActivitiesImpl(
        Map.of(ToolContract.Channel.HTTP, TracedChannel.of(new HttpChannel(), tracing),
            ToolContract.Channel.SSH, TracedChannel.of(new SshChannel(), tracing),
            ToolContract.Channel.MCP, TracedChannel.of(new io.onceport.activity.mcp.McpChannel(mcpUpstreams), tracing)),
        journals.dispatchJournal(), credentials, InProcessAnswers.of(taskQueue));
    io.onceport.frontend.fingerprint.FingerprintKey fingerprintKey;
    try {
      // The same key the front ends use (data/keys is shared): session workflow ids derive from it.
      fingerprintKey = io.onceport.frontend.fingerprint.FingerprintKey.loadOrCreate(dataDir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read or create the fingerprint key under " + dataDir + ": " + e.getMessage(), e);
    }
    SessionAuthority operator = SessionAuthorities.forPolicy(SessionAuthorities.OPERATOR, connection.client(), taskQueue,
        FrontendRuntime.sessionWorkflowIds(fingerprintKey));
    SessionAuthority auto = SessionAuthority.auto();
    SessionAuthority byDefault = SessionAuthorities.AUTO.equals(sessionPolicy) ? auto : operator;
    AuthorizationActivitiesImpl authorization = new AuthorizationActivitiesImpl(vault, byDefault, approvalTimeout,
        TargetPolicy.allowAll(), policy -> SessionAuthorities.AUTO.equals(policy) ? auto : operator);
    WorkerHost host = WorkerHost.start(connection, taskQueue, tuning, versioning, dispatch, authorization, journals.activities(),
        new SessionJournalActivitiesImpl((entry, key) -> journals.sessions().append(entry, key)),
        new OperatorActivitiesImpl(new OperatorRegistry(dataDir)));
    VaultLockWatcher watcher = VaultLockWatcher.start(dataDir, Duration.ofSeconds(1), locked -> {
      if (locked) {
        int n = AuthorizationRechecks.signalWaiting(connection, "vault locked");
        LoggerFactory.getLogger(WorkerRuntime.class).info("vault locked: {} waiting executions re-check their authorization", n);
      }
    });
    WorkerRuntime runtime = new WorkerRuntime(journals, vault, watcher, dispatch, host, mcpUpstreams);
    // A front end in this process may now wait for this worker's answers in band.
    runtime.answering = InProcessAnswers.of(taskQueue).workerStarted();
    return runtime;
  }

  /** The upstream MCP servers this worker calls (stdio ones are processes it supervises). */
  public io.onceport.activity.mcp.McpUpstreams mcpUpstreams() {
    return mcpUpstreams;
  }

  /** How the worker runs, for the start-up line (its Worker Deployment version and whether it is current, or unversioned). */
  public String describeVersioning() {
    return host.describe();
  }

  public Journals journals() {
    return journals;
  }

  /**
   * What a front end in the same JVM may use for reads: this worker's vault, and its activity
   * journal for one {@code read} entry per read (written without waiting for the fsync).
   */
  public FrontendRuntime.ReadAccess readAccess() {
    return new FrontendRuntime.ReadAccess(vault, (payload, key) -> journals.activity().appendAsync(payload, key));
  }

  @Override
  public void close() {
    try {
      answering.close();
    } catch (Exception e) {
      // a counter: cannot fail
    }
    lockWatcher.close();
    dispatch.drainHandOvers(Duration.ofSeconds(5));
    host.close();
    dispatch.close();
    mcpUpstreams.close();
    journals.close();
    if (vault != null) {
      vault.close();
    }
  }
}
