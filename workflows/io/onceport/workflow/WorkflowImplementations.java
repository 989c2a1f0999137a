package io.onceport.workflow;

import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import io.onceport.workflow.session.AgentSessionWorkflowImpl;
import java.util.List;

/**
 * The workflow implementation types a worker registers. Workers name this list rather than the
 * {@code *WorkflowImpl} classes, so nothing outside {@code workflows/} depends on an
 * implementation (an ArchUnit rule holds the code to that) and a new workflow type is added here
 * once for every role that runs workers.
 */
public final class WorkflowImplementations {
  private static final List<Class<?>> TYPES = List.of(ToolExecutionWorkflowImpl.class, AgentSessionWorkflowImpl.class);

  private WorkflowImplementations() {}

  /** A fresh array each call, for {@code Worker.registerWorkflowImplementationTypes(Class...)}. */
  public static Class<?>[] types() {
    return TYPES.toArray(new Class<?>[0]);
  }
}
