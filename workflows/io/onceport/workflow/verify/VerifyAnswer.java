package io.onceport.workflow.verify;

import java.util.List;
import java.util.Objects;

/**
 * What one verification check found: the verdict, the answer's status, and what each condition's
 * pointer held next to what it had to equal. Never the answer itself: the record keeps only the
 * values the contract points at (each at most {@link #MAX_VALUE} characters, taken from the answer
 * after the channel removed the credential's secret).
 *
 * @param status the answer's HTTP status (an ssh check: the command's exit status); null for an mcp
 *     tool or when no answer came
 * @param held one entry per condition that has a pointer
 * @param detail one sentence for the record: why the verdict
 */
public record VerifyAnswer(Verdict verdict, Integer status, List<Held> held, String detail) {
  /** The longest value kept of what a pointer held (a key id, a state; not a document). */
  public static final int MAX_VALUE = 200;

  public enum Verdict {
    /** The answer matched {@code verified_when}: the effect is there. */
    VERIFIED,
    /** The answer matched {@code not_applied_when}: the effect is provably not there. */
    NOT_APPLIED,
    /** Anything else: a status outside the lists, a missing pointer, no answer, both conditions at once. */
    NOT_YET_KNOWN;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * What one condition's pointer held.
   *
   * @param condition {@code verified_when} or {@code not_applied_when}
   * @param value the value at the pointer as JSON text (capped), or null when the pointer is missing
   * @param expected what it had to equal as JSON text (capped), or null when that could not be resolved
   */
  public record Held(String condition, String pointer, String value, String expected) {
    public Held {
      Objects.requireNonNull(condition, "condition == null");
      Objects.requireNonNull(pointer, "pointer == null");
    }
  }

  public VerifyAnswer {
    Objects.requireNonNull(verdict, "verdict == null");
    held = held == null ? List.of() : List.copyOf(held);
    detail = detail == null ? "" : detail;
  }

  /** A check that got no answer to evaluate (the request failed): not yet known. */
  public static VerifyAnswer noAnswer(String why) {
    return new VerifyAnswer(Verdict.NOT_YET_KNOWN, null, List.of(), why);
  }
}
