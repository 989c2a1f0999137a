package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Compares the {@code mcp} contracts of one upstream server with what the server lists now. An
 * upstream that changed its tools (and said so with {@code notifications/tools/list_changed}) is
 * never followed silently: the gateway keeps serving the contracts, and this comparison is how an
 * operator sees the change — a tool gone, an input schema changed, an annotation or capability the
 * contract's replay class relied on withdrawn — and decides whether to re-import.
 */
public final class UpstreamDrift {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A difference; {@code blocking} ones make {@code contracts check --upstream} exit 1. */
  public record Finding(String tool, String message, boolean blocking) {}

  private UpstreamDrift() {}

  /**
   * @param contracts the contracts naming this upstream
   * @param listed the server's {@code tools/list} now
   * @param idempotency whether the server advertises {@code tools.idempotency} now
   */
  public static List<Finding> compare(List<ToolContract> contracts, List<JsonNode> listed, boolean idempotency) {
    List<Finding> out = new ArrayList<>();
    Set<String> covered = new TreeSet<>();
    for (ToolContract c : contracts) {
      String upstreamTool = c.mcp().tool();
      covered.add(upstreamTool);
      JsonNode now = listed.stream().filter(t -> t.path("name").asText().equals(upstreamTool)).findFirst().orElse(null);
      if (now == null) {
        out.add(new Finding(c.tool(), "the upstream no longer lists tool " + upstreamTool + "; calls would fail", true));
        continue;
      }
      JsonNode schemaNow = McpImport.inputSchema(now);
      JsonNode schemaThen;
      try {
        schemaThen = JSON.readTree(c.inputSchema());
      } catch (Exception e) {
        schemaThen = null;
      }
      if (!schemaNow.equals(schemaThen)) {
        out.add(new Finding(c.tool(), "input schema changed upstream; the contract has " + schemaThen + ", the upstream now "
            + schemaNow + " (re-import to adopt it)", true));
      }
      JsonNode annotations = now.path("annotations");
      if (c.replayClass() == ReplayClass.READ_ONLY && McpImport.propose(annotations, idempotency) != ReplayClass.READ_ONLY) {
        out.add(new Finding(c.tool(), "the contract says read_only, but the upstream does not mark " + upstreamTool
            + " readOnlyHint without also marking it destructive (annotations now: " + annotations + ")", true));
      }
      if (c.replayClass() == ReplayClass.IDEMPOTENCY_KEY && !idempotency) {
        out.add(new Finding(c.tool(), "the contract says idempotency_key, but the upstream no longer advertises"
            + " tools.idempotency; dispatch refuses the tool until it does or the class changes", true));
      }
      String descriptionNow = now.path("description").asText("");
      if (!descriptionNow.isEmpty() && !descriptionNow.equals(c.description())) {
        out.add(new Finding(c.tool(), "description changed upstream: \"" + descriptionNow + "\"", false));
      }
    }
    for (JsonNode t : listed) {
      String name = t.path("name").asText();
      if (!covered.contains(name)) {
        out.add(new Finding(name, "a tool of the upstream that no contract names (import it with --tool " + name + ")", false));
      }
    }
    return out;
  }
}
