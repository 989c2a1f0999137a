package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.onceport.workflow.operator.SignedDecision;
import java.util.Locale;
import java.util.Objects;

/**
 * An operator's verdict on the effect of an execution kept {@code until_verified} ({@code onceport
 * executions verify act_… --verified|--not-applied --reason …}): the effect is there, or it is
 * absent. Like every operator decision it takes effect only as a verified signed statement; the
 * plain fields are the caller's claim.
 */
public record VerificationDecision(Decision decision, String reason, String by, String statement, String signature) {
  public enum Decision {
    VERIFIED,
    NOT_APPLIED;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public VerificationDecision {
    boolean signed = statement != null && !statement.isBlank();
    if (!signed) {
      Objects.requireNonNull(decision, "decision == null");
      if (reason == null || reason.isBlank()) {
        throw new IllegalArgumentException("a verification verdict needs a reason");
      }
    }
    reason = reason == null ? "" : reason;
    by = by == null || by.isBlank() ? "operator" : by;
  }

  /** The signed statement, or null when none was presented. */
  @JsonIgnore
  public SignedDecision signedDecision() {
    return SignedDecision.ofNullable(statement, signature);
  }
}
