package io.onceport.workflow.execution;

import io.onceport.workflow.replay.ReplayPolicy;
import io.temporal.workflow.Workflow;
import java.util.Locale;

/**
 * The call's story in Temporal's user metadata, so that the Temporal UI's timeline reads as what
 * happened: the start request's summary (what was asked, sent where), a summary on every activity
 * (which send, to where, why the replay policy sent it; which status query; the ladder; a
 * decision's verification; not the journal's writes, whose budget per call ToolExecutionCostTest
 * holds), and the run's current details (state, what each send
 * observed, what the policy decided, who decided). Temporal encodes these with the payload codec
 * like any payload: with encryption on, the UI shows them through the codec server only.
 *
 * <p><b>No secrets.</b> Built from the masked arguments ({@link ExecutionInput#shownArguments}), the
 * target as fingerprinted (no query, no user info; secret URL arguments masked), the tool, the
 * actor, state names, status codes and the policy's own reasons — never a send's detail text or
 * a target's answer, which may echo a credential (SecretLeakEndToEndTest, EchoedSecretEndToEndTest).
 *
 * <p>Not a command: {@link Workflow#setCurrentDetails} is answered by the SDK's metadata query, and
 * activity summaries ride on the commands the run issues anyway, so replays are unaffected.
 */
final class CallStory {
  /** The UI shows a summary on one line; longer text is cut there anyway. */
  static final int MAX_SUMMARY = 200;

  private String lastDecision;
  private String lastDetails;

  /** What was asked and where it goes: {@code send_notification message=hi → POST http://host/v1/notifications}. */
  static String startSummary(ExecutionInput input) {
    return cut(ExecutionVisibility.requestSummary(input.tool(), input.shownArguments()) + " → " + where(input));
  }

  /** {@code POST http://host/path (http, idempotency_key)}. */
  static String where(ExecutionInput input) {
    String method = input.method() == null || input.method().isBlank() ? "" : input.method() + " ";
    return method + input.target() + " (" + input.contract().channel().name().toLowerCase(Locale.ROOT) + ", "
        + input.contract().replayClass().wireName() + ")";
  }

  /** The replay policy decided the next step. */
  void decided(ReplayPolicy.Step step) {
    lastDecision = step.action().name().toLowerCase(Locale.ROOT) + ": " + step.reason();
  }

  /** The send activity's summary: {@code send 2 → POST http://host/path — why the policy sent it}. */
  String send(ExecutionInput input, int attempt) {
    return cut("send " + attempt + " → " + where(input) + (lastDecision == null ? "" : " — " + lastDecision));
  }

  /** The status query activity's summary. */
  static String statusQuery(ExecutionInput input, String executionId, int query) {
    return cut("status query " + query + ": did " + executionId + " run at " + input.target() + "?");
  }

  /** The authorization ladder's summary. */
  static String authorization(ExecutionInput input) {
    return cut("authorize " + input.tool() + " for " + input.actor() + " → " + where(input));
  }

  /** A signed operator decision's verification. */
  static String verification(ExecutionInput input) {
    return cut("verify an operator's signed decision on " + input.tool());
  }

  /** Sets the run's current details when what they say changed (main method, at each wait). */
  void tell(ExecutionRecord r, ExecutionInput input) {
    String details = details(r, input, lastDecision);
    if (!details.equals(lastDetails)) {
      Workflow.setCurrentDetails(details);
      lastDetails = details;
    }
  }

  /** The current details: markdown lines the UI shows under "Current details". */
  static String details(ExecutionRecord r, ExecutionInput input, String lastDecision) {
    StringBuilder b = new StringBuilder();
    b.append("**").append(r.executionId()).append("** ").append(startSummary(input)).append('\n');
    b.append("\nstate: **").append(r.state().wireName()).append("**");
    if (r.outcome() != null) {
      b.append(", outcome ").append(r.outcome().name().toLowerCase(Locale.ROOT));
    }
    b.append(", delivery ").append(r.delivery().wireName()).append('\n');
    if (r.authorization() != null && r.authorization().decision() != null) {
      b.append("\nauthorization: ").append(r.authorization().decision());
      if (r.authorization().rule() != null) {
        b.append(" (").append(r.authorization().rule()).append(')');
      }
      if (r.authorization().by() != null) {
        b.append(" by ").append(r.authorization().by());
      }
      b.append('\n');
    }
    for (ExecutionRecord.Send s : r.sends()) {
      b.append("\nsend ").append(s.attempt()).append(": observed ").append(s.observed());
      if (s.status() != null) {
        b.append(' ').append(s.status());
      }
      if (s.decision() != null) {
        b.append("; replay policy: ").append(s.decision());
      }
      b.append('\n');
    }
    for (ExecutionRecord.StatusCheck c : r.statusChecks()) {
      b.append("\nstatus query: ").append(c.verdict()).append(c.status() == null ? "" : " " + c.status()).append('\n');
    }
    if (lastDecision != null) {
      b.append("\nreplay policy decided: ").append(lastDecision).append('\n');
    }
    if (r.review() != null && r.review().decision() != null) {
      b.append("\nreview: ").append(r.review().decision()).append(" by ").append(r.review().by()).append('\n');
    }
    return b.toString();
  }

  private static String cut(String text) {
    return text.length() <= MAX_SUMMARY ? text : text.substring(0, MAX_SUMMARY - 1) + "…";
  }
}
