package io.onceport.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.activity.mcp.McpFailure;
import io.onceport.activity.mcp.McpSession;
import io.onceport.activity.mcp.McpUpstream;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.contract.McpImport;
import io.onceport.frontend.contract.UpstreamDrift;
import io.onceport.shared.text.InertText;
import io.onceport.workflow.contract.McpSpec;
import io.onceport.workflow.contract.ToolContract;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code contracts check --upstream}: asks every upstream MCP server the contracts name for its
 * tools now and prints what differs ({@link UpstreamDrift}). Returns the number of blocking
 * differences (and unreachable servers).
 */
final class UpstreamCheck {
  private UpstreamCheck() {}

  static int run(ContractSet set, Map<String, String> headers, long timeoutMillis, PrintWriter out) {
    Map<String, List<ToolContract>> byUpstream = new LinkedHashMap<>();
    for (ToolContract c : set.contracts()) {
      if (c.channel() == ToolContract.Channel.MCP) {
        McpSpec m = c.mcp();
        byUpstream.computeIfAbsent(m.url() != null ? m.url() : m.command() + " " + m.env() + " " + m.workingDir(),
            k -> new ArrayList<>()).add(c);
      }
    }
    if (byUpstream.isEmpty()) {
      out.println("upstream: no mcp contracts to compare");
      return 0;
    }
    int blocking = 0;
    for (List<ToolContract> group : byUpstream.values()) {
      McpSpec m = group.get(0).mcp();
      McpImport.Upstream where = new McpImport.Upstream(m.url(), m.command(), m.env(), m.workingDir(), m.credential());
      try (McpUpstream upstream = ImportMcpCommand.UpstreamAccess.open(where)) {
        McpSession session;
        List<JsonNode> listed;
        try {
          session = upstream.session(m.url() != null ? headers : Map.of(), timeoutMillis);
          listed = upstream.listTools(session, m.url() != null ? headers : Map.of(), timeoutMillis);
        } catch (McpFailure e) {
          out.println(InertText.of("upstream " + upstream.describe() + ": cannot compare, " + e.getMessage()));
          blocking++;
          continue;
        }
        List<UpstreamDrift.Finding> findings = UpstreamDrift.compare(group, listed, session.advertisesIdempotency());
        long b = findings.stream().filter(UpstreamDrift.Finding::blocking).count();
        out.println(InertText.of("upstream " + upstream.describe() + " (" + session.describeServer() + "): " + group.size()
            + " contracts, " + listed.size() + " upstream tools, " + (b == 0 ? "no changes" : b + (b == 1 ? " change" : " changes"))));
        for (UpstreamDrift.Finding f : findings) {
          out.println(InertText.of((f.blocking() ? "  changed  " : "  note     ") + f.tool() + ": " + f.message()));
        }
        blocking += (int) b;
      }
    }
    return blocking;
  }
}
