package io.onceport.frontend.archfixture;

import io.onceport.activity.vault.CredentialResolver;
import io.onceport.app.runtime.WorkerRuntime;

/**
 * Deliberately wrong: front-end code resolving credentials from the vault itself and reaching into
 * the application's worker wiring. Read only by ArchitectureTest to show the front-end and
 * composition-root rules fail on it. Never called.
 */
public final class FrontEndWiringAWorker {
  private FrontEndWiringAWorker() {}

  static Object credentials() {
    return CredentialResolver.NONE;
  }

  static Object worker() {
    return WorkerRuntime.class;
  }
}
