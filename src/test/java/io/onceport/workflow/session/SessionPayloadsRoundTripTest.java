package io.onceport.workflow.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.workflow.execution.ExecutionRecord;
import io.temporal.common.converter.DataConverter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every record the session workflow and the approval path send through Temporal survives the data converter. */
class SessionPayloadsRoundTripTest {
  private static <T> T roundTrip(T value, Class<T> type) {
    DataConverter converter = DataConverter.getDefaultInstance();
    return converter.fromPayload(converter.toPayload(value).orElseThrow(), type, type);
  }

  @Test
  void sessionRecordsAndSignalsRoundTrip() {
    SessionRecord record = new SessionRecord("mcp:1", "alice", "claude/1.2", "2025-06-18", "127.0.0.1", "2026-11-30T06:00:00Z",
        null, null, new SessionRecord.Authorization("authorized", "operator:carol", "2026-11-30T06:01:00Z", ""),
        List.of("onceport-fp-a"), List.of("onceport-fp-a", "onceport-fp-b"), 7);
    assertEquals(record, roundTrip(record, SessionRecord.class));
    SessionStarted started = new SessionStarted("mcp:1", "alice", "claude", "1.2", "2025-06-18", "127.0.0.1", "2026-11-30T06:00:00Z");
    assertEquals(started, roundTrip(started, SessionStarted.class));
    assertEquals(new AgentSessionInput("mcp:1", "alice"), roundTrip(new AgentSessionInput("mcp:1", "alice"), AgentSessionInput.class));
    assertEquals(new SessionDecision("ops", "why"), roundTrip(new SessionDecision("ops", "why"), SessionDecision.class));
    assertEquals(new SessionEnded("gone", "2026-11-30T06:02:00Z"), roundTrip(new SessionEnded("gone", "2026-11-30T06:02:00Z"), SessionEnded.class));
    SessionJournalEntry entry = new SessionJournalEntry("mcp:1", "alice", "started", "run-1", 1, "2026-11-30T06:00:00Z", Map.of("client", "claude/1.2"));
    assertEquals(entry, roundTrip(entry, SessionJournalEntry.class));
    assertEquals("session/run-1/1", entry.appendKey());
  }

  @Test
  void anAuthorizationWithItsExpiryRoundTrips() {
    ExecutionRecord.Authorization a = new ExecutionRecord.Authorization(
        "awaiting_approval", "approve_each_use", "2026-11-30T06:00:00Z", "policy", "needs approval", "2026-11-30T06:15:00Z");
    assertEquals(a, roundTrip(a, ExecutionRecord.Authorization.class));
  }

  @Test
  void decisionsWithTheirSignedStatementsRoundTripAndTheUiInputOfJustTheStatementDecodes() {
    var approval = new io.onceport.workflow.execution.ApprovalDecision("act_1", "hmac-sha256:ab", true, "ticket 7", "carol", "{\"v\":1}", "c2ln");
    assertEquals(approval, roundTrip(approval, io.onceport.workflow.execution.ApprovalDecision.class));
    var resolution = new io.onceport.workflow.execution.Resolution(
        io.onceport.workflow.execution.Resolution.Decision.REDISPATCH, "did not run", "carol", "{\"v\":1}", "c2ln");
    assertEquals(resolution, roundTrip(resolution, io.onceport.workflow.execution.Resolution.class));
    var forwarded = new io.onceport.workflow.execution.SessionAuthorization("mcp:1", true, "carol", "ok", "{\"v\":1}", "c2ln");
    assertEquals(forwarded, roundTrip(forwarded, io.onceport.workflow.execution.SessionAuthorization.class));
    var session = new SessionDecision("carol", "ok", "{\"v\":1}", "c2ln");
    assertEquals(session, roundTrip(session, SessionDecision.class));

    // What `onceport operator sign` prints is a valid input of every decision handler.
    DataConverter converter = DataConverter.getDefaultInstance();
    var pasted = converter.toPayload(java.util.Map.of("statement", "{\"v\":1}", "signature", "c2ln")).orElseThrow();
    assertEquals(new io.onceport.workflow.operator.SignedDecision("{\"v\":1}", "c2ln"),
        converter.fromPayload(pasted, io.onceport.workflow.execution.ApprovalDecision.class, io.onceport.workflow.execution.ApprovalDecision.class)
            .signedDecision());
    assertEquals(new io.onceport.workflow.operator.SignedDecision("{\"v\":1}", "c2ln"),
        converter.fromPayload(pasted, io.onceport.workflow.execution.Resolution.class, io.onceport.workflow.execution.Resolution.class)
            .signedDecision());
    assertEquals(new io.onceport.workflow.operator.SignedDecision("{\"v\":1}", "c2ln"),
        converter.fromPayload(pasted, SessionDecision.class, SessionDecision.class).signedDecision());

    // Inputs recorded before decisions were signed still decode, as unsigned decisions.
    var old = converter.toPayload(java.util.Map.of("sessionId", "mcp:1", "authorized", true, "by", "operator:carol", "reason", "")).orElseThrow();
    var decoded = converter.fromPayload(old, io.onceport.workflow.execution.SessionAuthorization.class,
        io.onceport.workflow.execution.SessionAuthorization.class);
    assertEquals(new io.onceport.workflow.execution.SessionAuthorization("mcp:1", true, "operator:carol", ""), decoded);
    assertEquals(null, decoded.signedDecision());
  }
}
