package io.onceport.workflow.execution;

import java.util.ArrayList;
import java.util.List;

/**
 * What update and signal handlers hand to the main method: operator decisions waiting to be
 * consumed, and the requests that wake it. Handlers only put things here (they issue no commands);
 * the main method takes them in its own deterministic order, verifies them and acts.
 */
final class Inbox {
  /** Session decisions queued while one is being verified; more are dropped (a flood changes nothing). */
  static final int MAX_QUEUED_SESSION_DECISIONS = 20;

  /** An update waiting for the main method's verdict on what it presented. */
  static final class Presented {
    private boolean done;
    private String refusal;

    boolean done() {
      return done;
    }

    /** Why the decision was refused, or null when it was applied. */
    String refusal() {
      return refusal;
    }
  }

  /** A decision taken out of the inbox with the update that presented it (null for none). */
  record Presentation<T>(T decision, Presented waiter) {
    /** Tells the waiting update what became of its decision: null when applied, else the refusal. */
    void answer(String refusal) {
      if (waiter != null) {
        waiter.refusal = refusal;
        waiter.done = true;
      }
    }
  }

  private ApprovalDecision approval;
  private Presented approvalWaiter;
  private long approvalDeadline;
  private SessionAuthorization session;
  private final List<SessionAuthorization> sessions = new ArrayList<>();
  private Resolution resolution;
  private Presented resolutionWaiter;
  private VerificationDecision verification;
  private Presented verificationWaiter;
  private boolean cancelRequested;
  private boolean recheckRequested;

  // ---- approval ----

  Presented presentApproval(ApprovalDecision decision) {
    approvalWaiter = new Presented();
    approval = decision;
    return approvalWaiter;
  }

  boolean approvalWaiting() {
    return approval != null;
  }

  Presentation<ApprovalDecision> takeApproval() {
    Presentation<ApprovalDecision> taken = new Presentation<>(approval, approvalWaiter);
    approval = null;
    approvalWaiter = null;
    return taken;
  }

  void approvalDeadline(long millis) {
    approvalDeadline = millis;
  }

  long approvalDeadline() {
    return approvalDeadline;
  }

  // ---- session authorization ----

  /** The first decision is the one an unsigned execution applies; signed ones look at every one queued. */
  void presentSessionDecision(SessionAuthorization decision) {
    if (session == null) {
      session = decision;
    }
    // Signed mode looks at every one presented (a forged first one must not hide the real one).
    if (sessions.size() < MAX_QUEUED_SESSION_DECISIONS) {
      sessions.add(decision);
    }
  }

  boolean sessionDecisionWaiting() {
    return session != null;
  }

  SessionAuthorization sessionDecision() {
    return session;
  }

  /** The oldest queued session decision, or null when none is left. */
  SessionAuthorization nextSessionDecision() {
    return sessions.isEmpty() ? null : sessions.remove(0);
  }

  void clearSessionDecisions() {
    sessions.clear();
    session = null;
  }

  // ---- review resolution ----

  Presented presentResolution(Resolution decided) {
    resolutionWaiter = new Presented();
    resolution = decided;
    return resolutionWaiter;
  }

  boolean resolutionWaiting() {
    return resolution != null;
  }

  Presentation<Resolution> takeResolution() {
    Presentation<Resolution> taken = new Presentation<>(resolution, resolutionWaiter);
    resolution = null;
    resolutionWaiter = null;
    return taken;
  }

  // ---- verification verdict ----

  Presented presentVerification(VerificationDecision decided) {
    verificationWaiter = new Presented();
    verification = decided;
    return verificationWaiter;
  }

  boolean verificationWaiting() {
    return verification != null;
  }

  Presentation<VerificationDecision> takeVerification() {
    Presentation<VerificationDecision> taken = new Presentation<>(verification, verificationWaiter);
    verification = null;
    verificationWaiter = null;
    return taken;
  }

  // ---- requests ----

  void requestCancel() {
    cancelRequested = true;
  }

  boolean cancelRequested() {
    return cancelRequested;
  }

  void requestRecheck() {
    recheckRequested = true;
  }

  boolean recheckRequested() {
    return recheckRequested;
  }

  void recheckDone() {
    recheckRequested = false;
  }
}
