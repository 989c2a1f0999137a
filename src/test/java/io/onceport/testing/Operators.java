package io.onceport.testing;

import io.onceport.activity.operator.DecisionStatement;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.workflow.operator.SignedDecision;
import io.onceport.workflow.session.SessionDecision;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/** Registered operators for tests: a real key pair, its public key in a real registry file. */
public final class Operators {
  private Operators() {}

  /** Generates NAME's key and registers it in {@code <data>/operators.json}. */
  public static OperatorKey register(Path data, String name) {
    OperatorKey key = OperatorKey.generate(name);
    try {
      new OperatorRegistry(data).add(key);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return key;
  }

  /** A statement issued now, valid for ten minutes. */
  public static SignedDecision sign(OperatorKey key, String kind, String subject, String fingerprint, String decision, String reason) {
    return key.sign(DecisionStatement.issue(kind, subject, fingerprint, decision, reason, key, Instant.now(), Duration.ofMinutes(10)));
  }

  /** A signed resolution of a {@code needs_review} execution, issued at {@code now} (the engine's time). */
  public static io.onceport.workflow.execution.Resolution resolution(OperatorKey key, io.onceport.workflow.execution.ExecutionRecord r,
      io.onceport.workflow.execution.Resolution.Decision decision, String reason, Instant now) {
    SignedDecision s = key.sign(DecisionStatement.issue("resolution", r.executionId(), r.fingerprint(),
        decision.name().toLowerCase(java.util.Locale.ROOT), reason, key, now, Duration.ofMinutes(10)));
    return new io.onceport.workflow.execution.Resolution(decision, reason, key.operator(), s.statement(), s.signature());
  }

  /** A signed approval or denial of an execution awaiting approval, issued now. */
  public static io.onceport.workflow.execution.ApprovalDecision approval(OperatorKey key, io.onceport.workflow.execution.ExecutionRecord r,
      boolean approve, String reason) {
    SignedDecision s = sign(key, "approval", r.executionId(), r.fingerprint(), approve ? "approve" : "deny", reason);
    return new io.onceport.workflow.execution.ApprovalDecision(r.executionId(), r.fingerprint(), approve, reason, key.operator(),
        s.statement(), s.signature());
  }

  /** The session update input for a signed {@code authorize} or {@code deny} of {@code actor}'s session. */
  public static SessionDecision session(OperatorKey key, String sessionId, String actor, String decision, String reason) {
    SignedDecision s = signSession(key, sessionId, actor, decision, reason);
    return new SessionDecision(key.operator(), reason, s.statement(), s.signature());
  }

  /** A signed decision on {@code actor}'s session, issued now, valid for ten minutes. */
  public static SignedDecision signSession(OperatorKey key, String sessionId, String actor, String decision, String reason) {
    return key.sign(DecisionStatement.issueSession(sessionId, actor, decision, reason, key, Instant.now(), Duration.ofMinutes(10)));
  }
}
