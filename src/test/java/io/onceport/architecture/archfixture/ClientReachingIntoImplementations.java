package io.onceport.architecture.archfixture;

import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import okhttp3.internal.http.HttpMethod;

/**
 * Deliberately wrong client code: it reads a workflow implementation and an OkHttp internal
 * class. Read only by ArchitectureTest to show both rules fail on it. Never called.
 */
public final class ClientReachingIntoImplementations {
  private ClientReachingIntoImplementations() {}

  static Object workflowImplementation() {
    return ToolExecutionWorkflowImpl.class;
  }

  static boolean okHttpInternal() {
    return HttpMethod.requiresRequestBody("POST");
  }
}
