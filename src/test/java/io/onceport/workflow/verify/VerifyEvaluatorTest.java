package io.onceport.workflow.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.verify.VerifyAnswer.Held;
import io.onceport.workflow.verify.VerifyAnswer.Verdict;
import io.onceport.workflow.verify.VerifyRequest.Expectation;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The verdict of one check, table by table: the rotation example's rules, literals, arguments, and everything "not yet known". */
class VerifyEvaluatorTest {
  private static final String ROTATION = "{\"service\":\"billing\",\"old_key_id\":\"billing-key-1\",\"new_key_id\":\"billing-key-2\"}";
  private static final VerifySpec ROTATE = VerifySpec.newBuilder()
      .setHttp("GET", "http://h/v1/credentials/{{service}}/active")
      .setVerifiedWhen(new VerifyCondition(List.of(200), "/key_id", "/new_key_id", null, null))
      .setNotAppliedWhen(new VerifyCondition(List.of(200), "/key_id", "/old_key_id", null, null))
      .build();

  private static VerifyAnswer check(VerifySpec spec, Integer status, String answer, String result) {
    JsonNode stored = VerifyEvaluator.parse(result);
    JsonNode arguments = VerifyEvaluator.parse("{\"service\":\"billing\",\"n\":3}");
    return VerifyEvaluator.evaluate(spec, status, VerifyEvaluator.parse(answer),
        VerifyEvaluator.expectation(spec.verifiedWhen(), stored, arguments),
        VerifyEvaluator.expectation(spec.notAppliedWhen(), stored, arguments));
  }

  @ParameterizedTest(name = "{0} {1} → {2}")
  @CsvSource(delimiter = '|', textBlock = """
      200 | {"key_id":"billing-key-2"}                 | VERIFIED      | the answer (200) matches verified_when (status [200], /key_id = result /new_key_id)
      200 | {"key_id":"billing-key-1"}                 | NOT_APPLIED   | the answer (200) matches not_applied_when (status [200], /key_id = result /old_key_id)
      200 | {"key_id":"billing-key-7"}                 | NOT_YET_KNOWN | not yet known: verified_when: /key_id is "billing-key-7", not result /new_key_id "billing-key-2"; not_applied_when: /key_id is "billing-key-7", not result /old_key_id "billing-key-1"
      202 | {"service":"billing","state":"rotating"}   | NOT_YET_KNOWN | not yet known: verified_when: status 202 is not in [200]; not_applied_when: status 202 is not in [200]
      200 | {"service":"billing"}                      | NOT_YET_KNOWN | not yet known: verified_when: the answer has no /key_id; not_applied_when: the answer has no /key_id
      200 | not json                                   | NOT_YET_KNOWN | not yet known: verified_when: the answer is not JSON; not_applied_when: the answer is not JSON
      503 | {"key_id":"billing-key-2"}                 | NOT_YET_KNOWN | not yet known: verified_when: status 503 is not in [200]; not_applied_when: status 503 is not in [200]
      """)
  void theRotationExample(int status, String answer, Verdict verdict, String detail) {
    VerifyAnswer a = check(ROTATE, status, answer, ROTATION);

    assertEquals(verdict, a.verdict());
    assertEquals(detail, a.detail());
    assertEquals(status, a.status());
  }

  @Test
  void whatThePointersHeldIsOnTheAnswerNextToWhatTheyHadToEqual() {
    VerifyAnswer a = check(ROTATE, 200, "{\"key_id\":\"billing-key-1\",\"secret_hint\":\"x\"}", ROTATION);

    assertEquals(List.of(new Held("verified_when", "/key_id", "\"billing-key-1\"", "\"billing-key-2\""),
        new Held("not_applied_when", "/key_id", "\"billing-key-1\"", "\"billing-key-1\"")), a.held());
    VerifyAnswer missing = check(ROTATE, 202, "{}", ROTATION);
    assertNull(missing.held().get(0).value());
  }

  @Test
  void withoutAStoredResultEqualsResultIsNotYetKnownAndSaysWhy() {
    VerifyAnswer a = check(ROTATE, 200, "{\"key_id\":\"billing-key-2\"}", null);

    assertEquals(Verdict.NOT_YET_KNOWN, a.verdict());
    assertEquals("not yet known: verified_when: the execution has no stored result to compare with (e.g. an operator resolved it); "
        + "not_applied_when: the execution has no stored result to compare with (e.g. an operator resolved it)", a.detail());
    assertNull(a.held().get(0).expected());
    VerifyAnswer partial = check(ROTATE, 200, "{\"key_id\":\"billing-key-2\"}", "{\"old_key_id\":\"billing-key-1\"}");
    assertEquals("not yet known: verified_when: the stored result has no /new_key_id; not_applied_when: /key_id is \"billing-key-2\", "
        + "not result /old_key_id \"billing-key-1\"", partial.detail());
  }

  @ParameterizedTest(name = "{0} = {1} → {2}")
  @CsvSource(delimiter = '|', textBlock = """
      "active"  | {"state":"active"}   | VERIFIED
      "active"  | {"state":"Active"}   | NOT_YET_KNOWN
      3         | {"state":3.0}        | VERIFIED
      3         | {"state":"3"}        | NOT_YET_KNOWN
      true      | {"state":true}       | VERIFIED
      null      | {"state":null}       | VERIFIED
      null      | {}                   | NOT_YET_KNOWN
      {"a":[1]} | {"state":{"a":[1]}}  | VERIFIED
      """)
  void aLiteralIsComparedAsJsonAndNumbersByValue(String literal, String answer, Verdict verdict) {
    VerifySpec spec = VerifySpec.newBuilder().setHttp("GET", "http://h/x")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/state", null, literal, null)).build();

    assertEquals(verdict, check(spec, 200, answer, null).verdict());
  }

  @Test
  void anArgumentIsComparedWithItsValueAndAMissingArgumentIsNotYetKnown() {
    VerifySpec spec = VerifySpec.newBuilder().setHttp("GET", "http://h/x")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/service", null, null, "service")).build();
    VerifySpec other = VerifySpec.newBuilder().setHttp("GET", "http://h/x")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/n", null, null, "absent")).build();

    assertEquals(Verdict.VERIFIED, check(spec, 200, "{\"service\":\"billing\"}", null).verdict());
    assertEquals(Verdict.NOT_YET_KNOWN, check(spec, 200, "{\"service\":\"payroll\"}", null).verdict());
    assertEquals("not yet known: verified_when: the call has no argument absent", check(other, 200, "{\"n\":3}", null).detail());
  }

  @Test
  void aStatusAloneDecidesWithoutAPointerAndAnMcpAnswerHasNoStatus() {
    VerifySpec byStatus = VerifySpec.newBuilder().setHttp("HEAD", "http://h/x")
        .setVerifiedWhen(VerifyCondition.status(List.of(200, 204))).setNotAppliedWhen(VerifyCondition.status(List.of(404))).build();
    VerifySpec mcp = VerifySpec.newBuilder().setMcp("get_key", null)
        .setVerifiedWhen(new VerifyCondition(List.of(), "/key_id", "/new_key_id", null, null)).build();

    assertEquals(Verdict.VERIFIED, check(byStatus, 204, "", null).verdict());
    assertEquals(Verdict.NOT_APPLIED, check(byStatus, 404, "", null).verdict());
    assertEquals(Verdict.NOT_YET_KNOWN, check(byStatus, 500, "", null).verdict());
    assertEquals(List.of(), check(byStatus, 204, "", null).held());
    assertEquals(Verdict.VERIFIED, check(mcp, null, "{\"key_id\":\"billing-key-2\"}", ROTATION).verdict());
  }

  @Test
  void anAnswerMatchingBothConditionsIsNotYetKnown() {
    VerifySpec both = VerifySpec.newBuilder().setHttp("GET", "http://h/x")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/key_id", "/new_key_id", null, null))
        .setNotAppliedWhen(new VerifyCondition(List.of(200), "/key_id", "/old_key_id", null, null)).build();

    VerifyAnswer a = check(both, 200, "{\"key_id\":\"k\"}", "{\"old_key_id\":\"k\",\"new_key_id\":\"k\"}");

    assertEquals(Verdict.NOT_YET_KNOWN, a.verdict());
    assertEquals("not yet known: it matches both verified_when and not_applied_when", a.detail());
  }

  @Test
  void pointersFollowRfc6901EscapesAndLongValuesAreCut() {
    VerifySpec spec = VerifySpec.newBuilder().setHttp("GET", "http://h/x")
        .setVerifiedWhen(new VerifyCondition(List.of(200), "/a~1b/~0c/1", null, "\"x\"", null)).build();

    assertEquals(Verdict.VERIFIED, check(spec, 200, "{\"a/b\":{\"~c\":[\"w\",\"x\"]}}", null).verdict());
    String longValue = "y".repeat(500);
    VerifyAnswer cut = check(spec, 200, "{\"a/b\":{\"~c\":[\"w\",\"" + longValue + "\"]}}", null);
    assertEquals(VerifyAnswer.MAX_VALUE + 1, cut.held().get(0).value().length());
  }

  @Test
  void expectationsSayWhereTheyComeFrom() {
    JsonNode stored = VerifyEvaluator.parse(ROTATION);
    assertEquals(new Expectation("\"billing-key-2\"", "result /new_key_id", null),
        VerifyEvaluator.expectation(ROTATE.verifiedWhen(), stored, null));
    assertEquals(new Expectation("7", "literal", null),
        VerifyEvaluator.expectation(new VerifyCondition(List.of(200), "/n", null, "7", null), stored, null));
    assertNull(VerifyEvaluator.expectation(VerifyCondition.status(List.of(200)), stored, null));
    assertNull(VerifyEvaluator.expectation(null, stored, null));
  }
}
