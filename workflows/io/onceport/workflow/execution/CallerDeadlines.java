package io.onceport.workflow.execution;

import io.temporal.workflow.Functions;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * The deadlines of callers waiting in {@code attach} and {@code awaitChange}. A handler may not
 * start a timer of its own (a command from a handler can replay in another order than it ran), so
 * it registers its deadline here and waits; the main method's single timer ({@link MainLoop}) wakes
 * the workflow at the earliest one.
 */
final class CallerDeadlines {
  private final List<Long> deadlines = new ArrayList<>();

  /** Waits in a handler until {@code answered} holds or {@code waitMillis} passed. */
  void await(long waitMillis, Functions.Func<Boolean> answered) {
    long deadline = Workflow.currentTimeMillis() + waitMillis;
    deadlines.add(deadline);
    Workflow.await(() -> answered.apply() || Workflow.currentTimeMillis() >= deadline);
    deadlines.remove(Long.valueOf(deadline));
  }

  int count() {
    return deadlines.size();
  }

  /** The earliest deadline after {@code now}, or {@code Long.MAX_VALUE}. */
  long earliestAfter(long now) {
    long earliest = Long.MAX_VALUE;
    for (long d : deadlines) {
      if (d > now && d < earliest) {
        earliest = d;
      }
    }
    return earliest;
  }
}
