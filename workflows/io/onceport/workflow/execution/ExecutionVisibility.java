package io.onceport.workflow.execution;

import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_ACTOR;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_EXECUTION_ID;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_FINGERPRINT;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_STATE;
import static io.onceport.workflow.execution.ExecutionSearchAttributes.SA_TOOL;

import io.temporal.workflow.Workflow;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an operator sees of an execution in Temporal visibility, derived from its record in this
 * one place: the search attributes ({@link ExecutionSearchAttributes}) and the memo {@code
 * summary}.
 *
 * <p><b>Cost.</b> An upsert is a command in history, so it is written only when its value changed:
 * the identity attributes once, with the first state; {@code OnceportState} when the view label
 * changed; the memo when the execution settles, waits for a person, or closes, and its text changed.
 * A run whose start request carried the memo (front ends that choose the execution id, with the
 * {@link ExecutionSearchAttributes#requestSummary request summary}) writes it only when it waits for
 * a person or settles other than completed and delivered: the happy path's state label already says
 * "completed, delivered", and the summary of what was asked stays.
 * Called from the main method only (never from a handler, whose commands could replay in another
 * order), at most once per wait.
 */
final class ExecutionVisibility {
  private static final Pattern TOP_LEVEL_ARGUMENT =
      Pattern.compile("\"([A-Za-z0-9_.-]{1,40})\":(\"[^\"]{0,40}\"|[0-9.eE+-]{1,20}|true|false|null)");

  private String publishedLabel;
  private String publishedMemo;
  private boolean publishedIdentity;
  private boolean memoAtStart;
  private boolean closing;
  private final CallStory story = new CallStory();

  /** The call's story in user metadata, told at every publish (see {@link CallStory}). */
  CallStory story() {
    return story;
  }

  /** The start request already published the identity and {@code state} (input with an execution id). */
  void publishedAtStart(String state) {
    publishedIdentity = true;
    publishedLabel = state;
  }

  /** The run is about to close: a delivery still pending now stays so (its attach window closed). */
  void closing() {
    closing = true;
  }

  /** The start request also carried the memo {@code summary} (a request summary; null: it did not). */
  void memoPublishedAtStart(String summary) {
    if (summary != null) {
      memoAtStart = true;
      publishedMemo = summary;
    }
  }

  void publish(Execution execution) {
    ExecutionRecord r = execution.record();
    story.tell(r, execution.input());
    String label = r.view();
    if (!label.equals(publishedLabel)) {
      if (!publishedIdentity) {
        Workflow.upsertTypedSearchAttributes(
            SA_EXECUTION_ID.valueSet(r.executionId()),
            SA_FINGERPRINT.valueSet(r.fingerprint()),
            SA_TOOL.valueSet(r.tool()),
            SA_ACTOR.valueSet(r.actor()),
            SA_STATE.valueSet(label));
        publishedIdentity = true;
      } else {
        Workflow.upsertTypedSearchAttributes(SA_STATE.valueSet(label));
      }
      publishedLabel = label;
    }
    if (memoAtStart ? memoDueAfterStartMemo(r, closing) : memoDue(r.state())) {
      String memo = summary(r);
      if (!memo.equals(publishedMemo)) {
        Workflow.upsertMemo(Map.of("summary", memo));
        publishedMemo = memo;
      }
    }
  }

  /** The memo is written when the execution settles, waits for a person, or closes. */
  static boolean memoDue(ExecutionState state) {
    return state.isTerminal() || state == ExecutionState.NEEDS_REVIEW
        || state == ExecutionState.AWAITING_APPROVAL || state == ExecutionState.AWAITING_SESSION_AUTHORIZATION;
  }

  /**
   * With the request summary published at start: when the execution waits for a person, or has
   * settled other than completed and delivered. A result whose delivery is still pending is not
   * settled for this until the run closes ({@code closing}): its delivery report comes first, or
   * the attach window ends.
   */
  static boolean memoDueAfterStartMemo(ExecutionRecord r, boolean closing) {
    ExecutionState state = r.state();
    if (!state.isTerminal()) {
      return memoDue(state);
    }
    if (r.verification() != null) {
      return true; // kept until verified: the memo says whether the effect was confirmed
    }
    if (state == ExecutionState.COMPLETED || state == ExecutionState.FAILED) {
      return switch (r.delivery()) {
        case DELIVERED -> state == ExecutionState.FAILED;
        case NOT_DELIVERED -> true;
        case PENDING -> closing;
      };
    }
    return true;
  }

  /** What was asked: {@code create_release service=catalog version=1} (at most three top-level arguments). */
  static String requestSummary(String tool, String shownArguments) {
    StringBuilder b = new StringBuilder(tool);
    Matcher m = TOP_LEVEL_ARGUMENT.matcher(shownArguments == null ? "" : shownArguments);
    for (int n = 0; n < 3 && m.find(); n++) {
      b.append(' ').append(m.group(1)).append('=').append(m.group(2).replace("\"", ""));
    }
    return b.toString();
  }

  /**
   * One line for the Temporal UI: {@code create_release service=catalog version=1 → 201, delivered};
   * for an execution kept until verified, with {@code , verification pending (12 checks)}.
   */
  static String summary(ExecutionRecord r) {
    StringBuilder b = new StringBuilder(requestSummary(r.tool(), r.arguments()));
    b.append(" → ");
    if (r.result() != null && r.result().status() != null) {
      b.append(r.result().status());
    } else if (r.result() != null && r.result().exitStatus() != null) {
      b.append("exit ").append(r.result().exitStatus());
    } else {
      b.append(r.state().wireName());
    }
    if (r.state() == ExecutionState.COMPLETED || r.state() == ExecutionState.FAILED) {
      b.append(", ").append(r.delivery().wireName());
    } else if (r.outcome() == Outcome.UNKNOWN) {
      b.append(", outcome unknown");
    }
    if (r.verification() != null) {
      b.append(", verification ").append(r.verification().state()).append(" (").append(r.verification().checkCount())
          .append(" checks)");
    }
    return b.toString();
  }
}
