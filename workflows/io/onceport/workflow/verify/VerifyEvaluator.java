package io.onceport.workflow.verify;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.verify.VerifyAnswer.Held;
import io.onceport.workflow.verify.VerifyAnswer.Verdict;
import io.onceport.workflow.verify.VerifyRequest.Expectation;
import java.util.ArrayList;
import java.util.List;

/**
 * The verdict of one verification check, from the answer and the contract's conditions: pure (no
 * I/O, no clock), so the activity and the tests apply the same rule, and the workflow resolves each
 * condition's expectation with it once.
 *
 * <p>The rule ({@code replay.verify}): an answer matches a condition when its status is in the
 * condition's list (an mcp answer has no status: any answer that is not an error) and, when the
 * condition has a pointer, the value at that pointer in the answer equals the expectation (JSON
 * equality; numbers by value, {@code 3} equals {@code 3.0}). Verified when only {@code
 * verified_when} matches, not applied when only {@code not_applied_when} matches, and "not yet known"
 * otherwise — a status outside the lists, a pointer that is missing in the answer, an expectation
 * that could not be resolved, an answer that is not JSON, or both conditions at once.
 */
public final class VerifyEvaluator {
  public static final String VERIFIED_WHEN = "verified_when";
  public static final String NOT_APPLIED_WHEN = "not_applied_when";

  private static final ObjectMapper JSON = new ObjectMapper();

  private VerifyEvaluator() {}

  /**
   * What {@code condition}'s pointer must equal: the value at {@code equalsResult} in the stored
   * result, the argument {@code equalsArgument}, or the literal; null when the condition has no
   * pointer (or is null).
   *
   * @param result the execution's stored result as the conditions read it (http: the target's JSON
   *     answer; mcp: its structuredContent), or null when there is none (e.g. resolved by an operator)
   * @param arguments the call's arguments object
   */
  public static Expectation expectation(VerifyCondition condition, JsonNode result, JsonNode arguments) {
    if (condition == null || condition.pointer() == null) {
      return null;
    }
    if (condition.equalsValue() != null) {
      return new Expectation(condition.equalsValue(), "literal", null);
    }
    if (condition.equalsArgument() != null) {
      JsonNode value = arguments == null ? null : arguments.get(condition.equalsArgument());
      String source = "argument " + condition.equalsArgument();
      return value == null ? new Expectation(null, source, "the call has no argument " + condition.equalsArgument())
          : new Expectation(value.toString(), source, null);
    }
    String source = "result " + condition.equalsResult();
    if (result == null) {
      return new Expectation(null, source, "the execution has no stored result to compare with (e.g. an operator resolved it)");
    }
    JsonNode value = result.at(JsonPointer.compile(condition.equalsResult()));
    return value.isMissingNode() ? new Expectation(null, source, "the stored result has no " + condition.equalsResult())
        : new Expectation(value.toString(), source, null);
  }

  /** A JSON text as a tree, or null when it is not JSON (then no pointer can match). */
  public static JsonNode parse(String json) {
    if (json == null || json.isBlank()) {
      return null;
    }
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /**
   * The verdict on one answer.
   *
   * @param status the answer's HTTP status (ssh: the command's exit status), or null for an mcp tool
   *     (whose conditions have no status list)
   * @param answer the answer as JSON (http: its body; mcp: its structuredContent; ssh: the command's
   *     stdout), or null when it is not JSON
   * @param verified {@link #expectation} of {@code verified_when}
   * @param notApplied {@link #expectation} of {@code not_applied_when}
   */
  public static VerifyAnswer evaluate(VerifySpec spec, Integer status, JsonNode answer, Expectation verified,
      Expectation notApplied) {
    List<Held> held = new ArrayList<>();
    Match v = match(VERIFIED_WHEN, spec.verifiedWhen(), status, answer, verified, held);
    Match n = spec.notAppliedWhen() == null ? null : match(NOT_APPLIED_WHEN, spec.notAppliedWhen(), status, answer, notApplied, held);
    String answered = status == null ? "the answer" : "the answer (" + status + ")";
    if (v.matched() && (n == null || !n.matched())) {
      return new VerifyAnswer(Verdict.VERIFIED, status, held, answered + " matches verified_when (" + spec.verifiedWhen().describe() + ")");
    }
    if (n != null && n.matched() && !v.matched()) {
      return new VerifyAnswer(Verdict.NOT_APPLIED, status, held,
          answered + " matches not_applied_when (" + spec.notAppliedWhen().describe() + ")");
    }
    String why = v.matched() ? "it matches both verified_when and not_applied_when"
        : "verified_when: " + v.why() + (n == null ? "" : "; not_applied_when: " + n.why());
    return new VerifyAnswer(Verdict.NOT_YET_KNOWN, status, held, "not yet known: " + why);
  }

  private record Match(boolean matched, String why) {}

  private static Match match(String name, VerifyCondition c, Integer status, JsonNode answer, Expectation e, List<Held> held) {
    JsonNode value = c.pointer() == null || answer == null ? null : answer.at(JsonPointer.compile(c.pointer()));
    boolean present = value != null && !value.isMissingNode();
    if (c.pointer() != null) {
      held.add(new Held(name, c.pointer(), present ? cap(value.toString()) : null, e == null || e.value() == null ? null : cap(e.value())));
    }
    if (!c.status().isEmpty() && (status == null || !c.status().contains(status))) {
      return new Match(false, "status " + status + " is not in " + c.status());
    }
    if (c.pointer() == null) {
      return new Match(true, "");
    }
    if (answer == null) {
      return new Match(false, "the answer is not JSON");
    }
    if (!present) {
      return new Match(false, "the answer has no " + c.pointer());
    }
    if (e == null || e.value() == null) {
      return new Match(false, e == null ? "nothing to compare with" : e.missing());
    }
    JsonNode expected = parse(e.value());
    boolean equal = expected != null && same(value, expected);
    return new Match(equal, equal ? "" : c.pointer() + " is " + cap(value.toString()) + ", not " + e.source() + " " + cap(e.value()));
  }

  /** JSON equality, numbers by value. */
  static boolean same(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private static String cap(String s) {
    return s.length() <= VerifyAnswer.MAX_VALUE ? s : s.substring(0, VerifyAnswer.MAX_VALUE) + "…";
  }
}
