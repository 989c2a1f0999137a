package io.onceport.workflow.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class JournalTransitionTest {
  /**
   * The words journals written so far contain: renaming a constant would silently change the
   * journal format (and what the metrics and the investigator match), so the list is spelled out.
   */
  @Test
  void wireNamesAreTheWordsTheJournalAlreadyHolds() {
    assertEquals(List.of("accepted", "authorized", "awaiting_approval", "awaiting_session_authorization", "rejected",
            "cancelled", "dispatched", "not_sent", "outcome_unknown", "status_query", "needs_review", "review_resolved",
            "decision_refused", "outcome", "call", "delivered", "not_delivered", "cancel_refused", "attach_window_closed",
            "sent_before", "reset", "verification_check", "verified", "not_applied", "verification_given_up",
            "verification_decided"),
        Arrays.stream(JournalTransition.values()).map(JournalTransition::wireName).toList());
  }

  @Test
  void aWordOutsideTheVocabularyIsNoTransition() {
    assertEquals(JournalTransition.OUTCOME_UNKNOWN, JournalTransition.fromWireName("outcome_unknown"));
    assertNull(JournalTransition.fromWireName("OUTCOME_UNKNOWN"), "wire names are lower case");
    assertNull(JournalTransition.fromWireName("attached"));
    assertNull(JournalTransition.fromWireName(null));
  }
}
