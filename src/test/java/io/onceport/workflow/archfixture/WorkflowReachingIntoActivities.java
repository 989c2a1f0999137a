package io.onceport.workflow.archfixture;

import io.onceport.activity.vault.CredentialResolver;
import io.onceport.shared.codec.Payloads;

/**
 * Deliberately wrong: workflow code resolving credentials and reaching the payload codec, both
 * I/O the workflow must leave to activities and to the worker's wiring. Read only by
 * ArchitectureTest to show the workflow rule fails on it. Never called.
 */
public final class WorkflowReachingIntoActivities {
  private WorkflowReachingIntoActivities() {}

  static Object credentials() {
    return CredentialResolver.NONE;
  }

  static Object codec() {
    return Payloads.class;
  }
}
