package io.onceport.app.investigate;

import io.onceport.activity.journal.JournalReader.Record;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionRecord.Verification;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The operators' decisions and the verification ({@code attach_window: until_verified}) of an
 * execution record as journal-shaped entries for {@link Investigation}, under the journal's own
 * transition names, and the verdict's sentence on the verification.
 */
final class VerificationEvents {
  private VerificationEvents() {}

  /** A review's resolution, the checks the record keeps (the journal has every one), an operator's verdict and the settle. */
  static void addDecisions(ExecutionRecord x, BiConsumer<String, Map<String, Object>> add) {
    if (x.review() != null) {
      add.accept("review_resolved#1", map("_at", x.review().at(), "decision", x.review().decision(), "by", x.review().by(),
          "reason", x.review().reason()));
    }
    Verification v = x.verification();
    if (v == null) {
      return;
    }
    for (ExecutionRecord.VerificationCheck c : v.checks()) {
      add.accept("verification_check#" + c.number(), map("_at", c.at(), "verdict", c.verdict(), "status", c.status(),
          "held", c.held().stream().map(h -> h.condition() + " " + h.pointer() + "=" + h.value() + " expected " + h.expected()).toList(),
          "detail", c.detail()));
    }
    if (v.decision() != null) {
      add.accept("verification_decided#1", map("_at", v.decision().at(), "decision", v.decision().decision(),
          "by", v.decision().by(), "reason", v.decision().reason()));
    }
    String settled = switch (v.state()) {
      case Verification.VERIFIED -> "verified";
      case Verification.NOT_APPLIED -> "not_applied";
      case Verification.GIVEN_UP -> "verification_given_up";
      default -> null;
    };
    if (settled != null) {
      add.accept(settled + "#1", map("_at", v.settledAt(), "checks", v.checkCount(), "target", v.target()));
    }
  }

  /** How the effect's verification stands, after how many checks; empty for an intent kept by time. */
  static String note(List<Record> checks, boolean verified, boolean notApplied, boolean givenUp) {
    int n = checks.stream().mapToInt(Record::attempt).max().orElse(0);
    String after = " after " + n + " check" + (n == 1 ? "" : "s");
    if (verified) {
      return "; effect verified" + after;
    }
    if (notApplied) {
      return "; effect found absent" + after + " (the replay class decided; never a second action under a new intent)";
    }
    if (givenUp) {
      return "; effect not confirmed" + after + ": an operator decides (onceport executions verify)";
    }
    return n > 0 ? "; effect not confirmed yet" + after + " (identical calls attach, the action is not repeated)" : "";
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int k = 0; k < kv.length; k += 2) {
      m.put((String) kv[k], kv[k + 1]);
    }
    return m;
  }
}
