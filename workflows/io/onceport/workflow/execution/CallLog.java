package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The calls recorded on an execution, as evidence: the first one created it, later ones attached
 * as retries. The record keeps the first {@link #MAX_RECORDED_CALLS}; later ones are counted (and
 * still journalled), so a retry storm cannot grow the record without bound.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE)
final class CallLog {
  /** Calls kept on the record; later ones are counted, not stored. */
  static final int MAX_RECORDED_CALLS = 200;

  private final List<AttachedCall> calls = new ArrayList<>();
  private int unrecorded;
  private int journalled;

  /** True once any call was recorded: the next one is a retry. */
  boolean any() {
    return !calls.isEmpty() || unrecorded > 0;
  }

  /** Records a call; returns the attempt number of its {@code call} journal entry. */
  int add(AttachRequest request, boolean retry, ExecutionState state) {
    if (calls.size() < MAX_RECORDED_CALLS) {
      calls.add(AttachedCall.of(request, retry, state));
    } else {
      unrecorded++;
    }
    return ++journalled;
  }

  /** What the journal keeps of a call: its protocol correlation, never anything that decides identity. */
  static Map<String, Object> evidence(AttachRequest request, boolean retry, ExecutionState state) {
    Map<String, Object> evidence = new LinkedHashMap<>();
    evidence.put("retry", retry);
    evidence.put("state", state.wireName());
    putIfPresent(evidence, "jsonrpc_id", request.jsonRpcId());
    putIfPresent(evidence, "session", request.sessionId());
    putIfPresent(evidence, "run", request.runId());
    putIfPresent(evidence, "intent_key", request.intentKey());
    putIfPresent(evidence, "client", request.clientInfo());
    putIfPresent(evidence, "protocol_version", request.protocolVersion());
    putIfPresent(evidence, "remote", request.remoteAddress());
    return evidence;
  }

  /** Marks the reported call (if it is on the record) delivered or not. */
  void reported(DeliveryReport report) {
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).callId().equals(report.callId())) {
        calls.set(i, calls.get(i).withDelivery(report.delivered() ? "delivered" : "not_delivered", report.at()));
      }
    }
  }

  /** How many recorded calls were not delivered, at least 1: the attempt of a {@code not_delivered} entry. */
  int notDelivered() {
    int n = 0;
    for (AttachedCall c : calls) {
      if ("not_delivered".equals(c.delivery())) {
        n++;
      }
    }
    return Math.max(1, n);
  }

  /** The record's message, saying how many calls were counted but not kept on the record. */
  String itemized(String message) {
    return unrecorded == 0 ? message : message + " (" + unrecorded + " further calls not itemized)";
  }

  List<AttachedCall> calls() {
    return new ArrayList<>(calls);
  }

  private static void putIfPresent(Map<String, Object> map, String key, String value) {
    if (value != null) {
      map.put(key, value);
    }
  }
}
