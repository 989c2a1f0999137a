package io.onceport.activity.vault.archfixture;

import io.onceport.activity.dispatch.DispatchJournal;

/**
 * Deliberately wrong: vault code depending on dispatch, which itself depends on the vault. Read
 * only by ArchitectureTest to show the vault rule and the activity-slice cycle rule fail on it.
 * Never called.
 */
public final class VaultReachingIntoDispatch {
  private VaultReachingIntoDispatch() {}

  static Object journal() {
    return DispatchJournal.NONE;
  }
}
