package io.onceport.testing;

import io.onceport.workflow.execution.ToolExecutionWorkflowImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.testing.ReplayResults;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.util.List;

/**
 * Replaying histories fetched from a running deployment against the current ToolExecution code,
 * with the deployment's data converter (its payloads are encrypted), and recognising the
 * workflow tasks that handled a signal and an update together.
 */
public final class Histories {
  private Histories() {}

  /** Replays every history; returns the failures (workflow id and error), empty when all replay. */
  public static List<String> replayFailures(List<WorkflowExecutionHistory> histories, DataConverter converter) throws Exception {
    TestEnvironmentOptions options = TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(converter).build()).build();
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(options)) {
      Worker worker = env.newWorker("replay-fault-load");
      worker.registerWorkflowImplementationTypes(ToolExecutionWorkflowImpl.class);
      ReplayResults results = WorkflowReplayer.replayWorkflowExecutions(histories, false, worker);
      return results.allErrors().stream().map(e -> e.workflowId + ": " + e.exception).toList();
    }
  }

  /** The causes of failed workflow tasks in a history (e.g. a NonDeterministicException), empty when none failed. */
  public static List<String> failedWorkflowTasks(WorkflowExecutionHistory history) {
    return history.getEvents().stream()
        .filter(e -> e.getEventType() == io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
        .map(e -> e.getWorkflowTaskFailedEventAttributes().getCause() + ": "
            + e.getWorkflowTaskFailedEventAttributes().getFailure().getMessage())
        .toList();
  }

  /**
   * Workflow tasks whose completion issued a command (the event after it is one of theirs, not an
   * external one). Under load the SDK may complete a task with nothing to do (a forced task while a
   * local activity runs, a timer that no longer matters): cost assertions count the tasks that did work.
   */
  public static long tasksWithCommands(WorkflowExecutionHistory history) {
    List<EventType> external = List.of(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_TIMER_FIRED,
        EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
    List<HistoryEvent> events = history.getEvents();
    long n = 0;
    for (int i = 0; i + 1 < events.size(); i++) {
      if (events.get(i).getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
          && !external.contains(events.get(i + 1).getEventType())) {
        n++;
      }
    }
    return n;
  }

  /**
   * True when some workflow task had a signal delivered (signalled since the previous task started)
   * and accepted an update in its completion (update-accepted events are written with it) — the
   * pair that replayed in the other order while handlers issued commands.
   */
  public static boolean signalAndUpdateInOneTask(WorkflowExecutionHistory history) {
    int signalsBeforeStart = 0;
    boolean taskHadSignal = false;
    for (HistoryEvent e : history.getEvents()) {
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED -> signalsBeforeStart++;
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> {
          taskHadSignal = signalsBeforeStart > 0;
          signalsBeforeStart = 0;
        }
        case EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED -> {
          if (taskHadSignal) {
            return true;
          }
        }
        default -> { }
      }
    }
    return false;
  }
}
