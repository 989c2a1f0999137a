package io.onceport.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.onceport.frontend.gateway.CallPreparation;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.frontend.gateway.PreparedCall;
import io.onceport.frontend.gateway.ToolCall;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionInput;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A deliberately simple preparation for workflow tests: sorted-key JSON and SHA-256. The product's
 * preparation (schema validation, JCS, HMAC) is tested on its own.
 */
public final class SimplePreparation implements CallPreparation {
  private static final ObjectMapper JSON = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
  private final Map<String, ToolContract> contracts = new LinkedHashMap<>();

  public SimplePreparation(ToolContract... tools) {
    for (ToolContract c : tools) {
      contracts.put(c.tool(), c);
    }
  }

  @Override
  public List<ToolContract> tools() {
    return List.copyOf(contracts.values());
  }

  @Override
  public PreparedCall prepare(ToolCall call) {
    ToolContract contract = contracts.get(call.tool());
    if (contract == null) {
      throw new GatewayException(GatewayException.Kind.UNKNOWN_TOOL, "Unknown tool: " + call.tool());
    }
    try {
      JsonNode args = call.arguments() == null ? JSON.createObjectNode() : call.arguments();
      Map<?, ?> sorted = JSON.treeToValue(args, Map.class);
      String scope = call.runId() == null ? "actor:" + call.actor() : "run:" + call.runId();
      String canonical = JSON.writeValueAsString(Map.of("actor", call.actor(), "tool", call.tool(), "arguments", sorted, "intent_scope", scope));
      String fp = "hmac-sha256:" + sha256(canonical);
      String argsJson = JSON.writeValueAsString(sorted);
      // The target as the product's preparation names it: the URL for http, the host for ssh.
      String target = contract.http() != null ? contract.http().url() : contract.ssh() != null
          ? "ssh://" + contract.ssh().user() + "@" + contract.ssh().host() + ":" + contract.ssh().port() : "";
      ExecutionInput input = ExecutionInput.of(fp, call.tool(), call.actor(), scope, call.intentKey(), call.sessionId(),
          target, contract.http() == null ? null : contract.http().method(), contract, argsJson, null);
      String wid = call.intentKey() == null ? "onceport-fp-" + fp.substring(12) : "onceport-key-" + sha256(call.actor() + "\n" + call.intentKey());
      return new PreparedCall(wid, input, call.intentKey() != null);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }
}
