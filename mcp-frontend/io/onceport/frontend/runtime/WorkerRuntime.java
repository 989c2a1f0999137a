package io.onceport.frontend.runtime;

import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthorities;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.session.SessionJournalActivitiesImpl;
import io.onceport.activity.auth.TargetPolicy;
import io.onceport.activity.dispatch.CredentialResolver;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.journal.Journals;
import io.onceport.activity.ssh.SshChannel;
import io.onceport.activity.vault.VaultLockWatcher;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.temporal.AuthorizationRechecks;
import io.onceport.frontend.temporal.TemporalConnection;
import io.onceport.frontend.temporal.WorkerHost;
import io.onceport.frontend.temporal.WorkerTuning;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The worker role: journals, vault, channels, the authorization ladder and the activities that
 * touch the world, polling one task queue. Everything a worker writes lives under its data
 * directory; {@code journalWriter} names its journal segments (one writer per process).
 */
public final class WorkerRuntime implements AutoCloseable {
  private final Journals journals;
  private final VaultService vault;
  private final VaultLockWatcher lockWatcher;
  private final DispatchActivitiesImpl dispatch;
  private final WorkerHost host;

  private WorkerRuntime(Journals journals, VaultService vault, VaultLockWatcher lockWatcher, DispatchActivitiesImpl dispatch, WorkerHost host) {
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

  /** As above, with the worker's workflow cache and thread bounds. */
  public static WorkerRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, VaultService vault,
      String sessionPolicy, Duration approvalTimeout, String journalWriter, WorkerTuning tuning) {
    Journals journals = Journals.open(dataDir, journalWriter == null ? Journals.defaultWriterId() : journalWriter);
    CredentialResolver credentials = vault == null ? CredentialResolver.NONE : vault;
    DispatchActivitiesImpl dispatch = new DispatchActivitiesImpl(
        Map.of(ToolContract.Channel.HTTP, new HttpChannel(), ToolContract.Channel.SSH, new SshChannel()),
        journals.dispatchJournal(), credentials);
    SessionAuthority operator = SessionAuthorities.forPolicy(SessionAuthorities.OPERATOR, connection.client(), taskQueue);
    SessionAuthority auto = SessionAuthority.auto();
    SessionAuthority byDefault = SessionAuthorities.AUTO.equals(sessionPolicy) ? auto : operator;
    AuthorizationActivitiesImpl authorization = new AuthorizationActivitiesImpl(vault, byDefault, approvalTimeout,
        TargetPolicy.allowAll(), policy -> SessionAuthorities.AUTO.equals(policy) ? auto : operator);
    WorkerHost host = WorkerHost.start(connection, taskQueue, tuning, dispatch, authorization, journals.activities(),
        new SessionJournalActivitiesImpl((entry, key) -> journals.sessions().append(entry, key)));
    VaultLockWatcher watcher = VaultLockWatcher.start(dataDir, Duration.ofSeconds(1), locked -> {
      if (locked) {
        int n = AuthorizationRechecks.signalWaiting(connection, "vault locked");
        LoggerFactory.getLogger(WorkerRuntime.class).info("vault locked: {} waiting executions re-check their authorization", n);
      }
    });
    return new WorkerRuntime(journals, vault, watcher, dispatch, host);
  }

  public Journals journals() {
    return journals;
  }

  @Override
  public void close() {
    lockWatcher.close();
    host.close();
    dispatch.close();
    journals.close();
    if (vault != null) {
      vault.close();
    }
  }
}
