package io.onceport.workflow.execution;

import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.operator.OperatorActivities;
import io.onceport.workflow.operator.SignedDecision;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Whether an operator's statement may take effect: signed by a registered operator's current
 * key, bound to this execution (or its session) and fingerprint and an applicable decision, within
 * its validity, and not applied here before (nonce). The verdict comes from a local activity, so it
 * is in history and replays.
 */
final class OperatorDecisions {
  /** The statement text kept in a refusal's journal entry, at most. */
  static final int MAX_JOURNALLED_STATEMENT = 2_000;

  private final Execution execution;
  private final OperatorActivities operators;
  private final Logger log;
  private final Set<String> appliedNonces = new LinkedHashSet<>();

  OperatorDecisions(Execution execution, OperatorActivities operators, Logger log) {
    this.execution = execution;
    this.operators = operators;
    this.log = log;
  }

  /**
   * Verifies a presented decision: null (unsigned) is refused without asking; a statement whose
   * nonce was applied here before is refused as replayed; a verification that cannot run fails
   * closed. A valid statement's nonce is taken: it decides once.
   */
  DecisionVerdict verify(SignedDecision statement, String kind, String subject, String fingerprint, List<String> allowed,
      String claimedBy, String howToSign) {
    return verify(statement, new DecisionBinding(kind, subject, fingerprint, allowed, Workflow.currentTimeMillis()), claimedBy,
        howToSign);
  }

  /** As {@link #verify}, for a decision on {@code actor}'s session {@code subject}. */
  DecisionVerdict verifySession(SignedDecision statement, String subject, String actor, List<String> allowed, String claimedBy,
      String howToSign) {
    return verify(statement, DecisionBinding.session(subject, actor, allowed, Workflow.currentTimeMillis()), claimedBy, howToSign);
  }

  private DecisionVerdict verify(SignedDecision statement, DecisionBinding binding, String claimedBy, String howToSign) {
    DecisionVerdict v;
    if (statement == null) {
      v = DecisionVerdict.refused(claimedBy, "unsigned: no signed statement was presented (sign it with " + howToSign + ")");
    } else {
      try {
        v = operators.verify(statement, binding);
      } catch (ActivityFailure failure) {
        v = DecisionVerdict.refused(null, "the decision could not be verified: " + MainLoop.rootMessage(failure));
      }
    }
    if (v.valid() && appliedNonces.contains(v.nonce())) {
      v = DecisionVerdict.refused(v.operator(),
          "replayed: this statement (nonce " + v.nonce() + ") was already applied to execution " + execution.executionId());
    }
    if (v.valid()) {
      appliedNonces.add(v.nonce());
    }
    return v;
  }

  /** A refusal: on the record, in the journal with what was presented; nothing else changes. */
  void refuse(String kind, DecisionVerdict v, SignedDecision presented, String claimedBy) {
    String statement = presented == null ? "(none)" : presented.statement();
    if (statement.length() > MAX_JOURNALLED_STATEMENT) {
      statement = statement.substring(0, MAX_JOURNALLED_STATEMENT) + "… (" + presented.statement().length() + " characters)";
    }
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("kind", kind);
    detail.put("refusal", v.refusal());
    detail.put("presented_by", v.operator() != null ? v.operator() : String.valueOf(claimedBy));
    detail.put("statement", statement);
    execution.decisionRefused(kind, v.refusal(), detail);
    log.warn("{} {} decision refused: {}", execution.executionId(), kind, v.refusal());
  }
}
