package io.onceport.workflow.contract;

import java.util.List;

/**
 * One answer a verification check recognises ({@code replay.verify.verified_when} or {@code
 * not_applied_when}): a status in {@code status}, and — when {@code pointer} is set — the value at
 * that JSON Pointer in the answer equal to the expected value: the value at {@code equalsResult}
 * (a JSON Pointer) in the execution's stored result, the literal {@code equalsValue}, or the
 * argument {@code equalsArgument}. Exactly one expectation goes with a pointer; without a pointer
 * the status alone decides. A status outside the list, or a pointer that is missing (in the answer
 * or the stored result), matches neither condition: "not yet known".
 *
 * @param status the answer statuses this condition takes (HTTP status codes; for an ssh check the
 *     command's exit statuses); empty for an mcp upstream's tool, whose answer has none (an error
 *     answer is "not yet known")
 * @param pointer a JSON Pointer into the verification answer (RFC 6901, e.g. {@code /key_id}), or null
 * @param equalsResult a JSON Pointer into the execution's stored result, or null
 * @param equalsValue a literal as JSON text (e.g. {@code "\"active\""}, {@code 3}), or null
 * @param equalsArgument the name of an argument of the call, or null
 */
public record VerifyCondition(
    List<Integer> status, String pointer, String equalsResult, String equalsValue, String equalsArgument) {
  public VerifyCondition {
    status = status == null ? List.of() : List.copyOf(status);
    int expectations = (equalsResult == null ? 0 : 1) + (equalsValue == null ? 0 : 1) + (equalsArgument == null ? 0 : 1);
    if (pointer != null && expectations != 1) {
      throw new IllegalArgumentException("Invalid condition: pointer " + pointer
          + " needs exactly one of equals_result, equals, equals_argument (has " + expectations + ")");
    }
    if (pointer == null && expectations != 0) {
      throw new IllegalArgumentException("Invalid condition: equals_result, equals and equals_argument need a pointer");
    }
    if (pointer == null && status.isEmpty()) {
      throw new IllegalArgumentException("Invalid condition: neither a status nor a pointer");
    }
    checkPointer(pointer, "pointer");
    checkPointer(equalsResult, "equals_result");
  }

  /** A condition on the status alone. */
  public static VerifyCondition status(List<Integer> status) {
    return new VerifyCondition(status, null, null, null, null);
  }

  /** A JSON Pointer is empty (the whole document) or starts with {@code /}; {@code ~} only as {@code ~0} or {@code ~1}. */
  static void checkPointer(String pointer, String field) {
    if (pointer == null) {
      return;
    }
    if (!pointer.isEmpty() && !pointer.startsWith("/")) {
      throw new IllegalArgumentException("Invalid " + field + ": " + pointer + " (a JSON Pointer starts with /, e.g. /key_id)");
    }
    for (int i = pointer.indexOf('~'); i >= 0; i = pointer.indexOf('~', i + 1)) {
      if (i + 1 >= pointer.length() || (pointer.charAt(i + 1) != '0' && pointer.charAt(i + 1) != '1')) {
        throw new IllegalArgumentException("Invalid " + field + ": " + pointer + " (~ is written ~0, / inside a name ~1)");
      }
    }
  }

  /** What this condition expects, for messages: {@code /key_id = result /new_key_id}. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    if (!status.isEmpty()) {
      b.append("status ").append(status);
    }
    if (pointer != null) {
      b.append(b.length() == 0 ? "" : ", ").append(pointer.isEmpty() ? "(answer)" : pointer).append(" = ");
      b.append(equalsResult != null ? "result " + (equalsResult.isEmpty() ? "(whole)" : equalsResult)
          : equalsArgument != null ? "argument " + equalsArgument : equalsValue);
    }
    return b.toString();
  }
}
