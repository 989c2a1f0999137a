package io.onceport.frontend.runtime;

import io.onceport.activity.auth.AuthorizationActivitiesImpl;
import io.onceport.activity.auth.SessionAuthority;
import io.onceport.activity.dispatch.CredentialResolver;
import io.onceport.activity.dispatch.DispatchActivitiesImpl;
import io.onceport.activity.http.HttpChannel;
import io.onceport.activity.journal.Journals;
import io.onceport.activity.ssh.SshChannel;
import io.onceport.activity.vault.VaultService;
import io.onceport.frontend.temporal.TemporalConnection;
import io.onceport.frontend.temporal.WorkerHost;
import io.onceport.workflow.contract.ToolContract;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The worker role: journals, vault, channels and the activities that touch the world, polling one
 * task queue. Everything a worker writes lives under its data directory.
 */
public final class WorkerRuntime implements AutoCloseable {
  private final Journals journals;
  private final VaultService vault;
  private final DispatchActivitiesImpl dispatch;
  private final WorkerHost host;

  private WorkerRuntime(Journals journals, VaultService vault, DispatchActivitiesImpl dispatch, WorkerHost host) {
    this.journals = journals;
    this.vault = vault;
    this.dispatch = dispatch;
    this.host = host;
  }

  /**
   * @param vault the vault service, or null when no vault is configured (credentials then fail
   *     closed with a clear reason)
   */
  public static WorkerRuntime start(
      TemporalConnection connection, String taskQueue, Path dataDir, VaultService vault,
      SessionAuthority sessions, Duration approvalTimeout) {
    Journals journals = Journals.open(dataDir, Journals.defaultWriterId());
    CredentialResolver credentials = vault == null ? CredentialResolver.NONE : vault;
    DispatchActivitiesImpl dispatch = new DispatchActivitiesImpl(
        Map.of(ToolContract.Channel.HTTP, new HttpChannel(), ToolContract.Channel.SSH, new SshChannel()),
        journals.dispatchJournal(), credentials);
    AuthorizationActivitiesImpl authorization = new AuthorizationActivitiesImpl(vault, sessions, approvalTimeout);
    WorkerHost host = WorkerHost.start(connection, taskQueue, dispatch, authorization, journals.activities());
    return new WorkerRuntime(journals, vault, dispatch, host);
  }

  public Journals journals() {
    return journals;
  }

  @Override
  public void close() {
    host.close();
    dispatch.close();
    journals.close();
    if (vault != null) {
      vault.close();
    }
  }
}
