package io.onceport.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.workflow.contract.McpSpec;
import io.onceport.workflow.contract.McpStatusSpec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The upstream MCP servers of src/test/node, built with the official TypeScript SDK: {@link Http}
 * (upstream-http.mjs, Streamable HTTP, honours idempotencyKey unless started without it, an HTTP
 * ledger of every tools/call) and {@link Stdio} (upstream-stdio.mjs, run by the worker itself, a
 * ledger file). Processes started here are ended by their own handle only.
 */
public final class UpstreamServers {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private UpstreamServers() {}

  /** The {@code *.yaml} files of a directory as file name → text (for {@code GatewayHarness}'s extra contracts). */
  public static Map<String, String> contractFiles(Path dir) throws IOException {
    Map<String, String> out = new java.util.TreeMap<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        out.put(f.getFileName().toString(), Files.readString(f));
      }
    }
    return out;
  }

  /** upstream-http.mjs on a free loopback port. */
  public static final class Http implements AutoCloseable {
    private final Node22.Started process;
    public final int port;

    private Http(Node22.Started process, int port) {
      this.process = process;
      this.port = port;
    }

    public static Http start(String... flags) throws Exception {
      return start(0, flags);
    }

    /** @param port 0 for a free one; a fixed one to restart a server where it was */
    public static Http start(int port, String... flags) throws Exception {
      return start(port, Map.of(), flags);
    }

    public static Http start(int port, Map<String, String> env, String... flags) throws Exception {
      Path bin = Node22.ready();
      List<String> cmd = new ArrayList<>(List.of(bin.resolve("node").toString(), "upstream-http.mjs", "--port", String.valueOf(port)));
      cmd.addAll(List.of(flags));
      Node22.Started p = Node22.start(cmd, Node22.PROJECT, env);
      String line = p.awaitLine("upstream-http listening on ", Duration.ofSeconds(60));
      return new Http(p, Integer.parseInt(line.substring(line.lastIndexOf(' ') + 1).trim()));
    }

    public String url() {
      return "http://127.0.0.1:" + port + "/mcp";
    }

    /** Every tools/call the server received, in order. */
    public List<JsonNode> ledger() throws IOException, InterruptedException {
      HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ledger")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      List<JsonNode> out = new ArrayList<>();
      JSON.readTree(r.body()).forEach(out::add);
      return out;
    }

    /** Ledger entries of one tool whose arguments contain {@code field = value}. */
    public List<JsonNode> calls(String tool, String field, String value) throws IOException, InterruptedException {
      return ledger().stream().filter(e -> e.path("tool").asText().equals(tool)
          && e.path("arguments").path(field).asText().equals(value)).toList();
    }

    /** {@code delay=MS} or {@code cut-after-call} for the next {@code count} side-effecting calls. */
    public void fault(String next, int count) throws IOException, InterruptedException {
      post("/admin/faults", "{\"next\":\"" + next + "\",\"count\":" + count + "}");
    }

    /** Changes create_ticket's schema, adds close_ticket and sends notifications/tools/list_changed. */
    public void changeTools() throws IOException, InterruptedException {
      post("/admin/change-tools", "{}");
    }

    private void post(String path, String body) throws IOException, InterruptedException {
      HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IOException(path + " answered " + r.statusCode() + ": " + r.body());
      }
    }

    public McpSpec spec(String tool) {
      return new McpSpec(url(), null, null, null, tool, null, 10_000, null);
    }

    public void kill9() throws InterruptedException {
      process.kill9();
    }

    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }

  /** Files and argv for upstream-stdio.mjs; the worker (or the test's channel) starts the process. */
  public static final class Stdio {
    public final Path dir;
    public final Path ledger;
    public final Path notes;
    public final Path faults;
    public final List<String> command;

    public Stdio(Path dir) throws Exception {
      this.dir = dir;
      this.ledger = dir.resolve("ledger.jsonl");
      this.notes = dir.resolve("notes.jsonl");
      this.faults = dir.resolve("faults.txt");
      this.command = List.of(Node22.ready().resolve("node").toString(), Node22.PROJECT.resolve("upstream-stdio.mjs").toString());
    }

    /** The node binary (v22+) the npm test project runs with. */
    public static Path node() throws Exception {
      return Node22.ready().resolve("node");
    }

    /** A script of the npm test project (src/test/node). */
    public static Path script(String name) {
      return Node22.PROJECT.resolve(name);
    }

    public Map<String, String> env() {
      return Map.of("LEDGER_FILE", ledger.toString(), "NOTES_FILE", notes.toString(), "FAULTS_FILE", faults.toString());
    }

    public McpSpec spec(String tool) {
      return new McpSpec(null, command, env(), null, tool, null, 10_000, null);
    }

    public McpSpec statusSpec(String tool) {
      return new McpSpec(null, command, env(), null, tool, null, 10_000,
          new McpStatusSpec("note_status", "{\"key\":\"{{execution_id}}\"}", "state", List.of("written"), List.of(), List.of("not_found")));
    }

    /** {@code die-after-call} or {@code delay=MS} for the next append_note. */
    public void fault(String next) throws IOException {
      Files.writeString(faults, next);
    }

    public List<JsonNode> ledger() throws IOException {
      if (!Files.exists(ledger)) {
        return List.of();
      }
      List<JsonNode> out = new ArrayList<>();
      for (String line : Files.readAllLines(ledger)) {
        if (!line.isBlank()) {
          out.add(JSON.readTree(line));
        }
      }
      return out;
    }

    public List<JsonNode> calls(String tool, String text) throws IOException {
      return ledger().stream().filter(e -> e.path("tool").asText().equals(tool)
          && e.path("arguments").path("text").asText().equals(text)).toList();
    }

    public List<String> notes() throws IOException {
      return Files.exists(notes) ? Files.readAllLines(notes).stream().filter(l -> !l.isBlank()).toList() : List.of();
    }

    /** The contract's YAML {@code command:} and {@code env:} lines for this server. */
    public String yaml() {
      StringBuilder b = new StringBuilder("  command: [");
      for (int i = 0; i < command.size(); i++) {
        b.append(i == 0 ? "" : ", ").append('"').append(command.get(i)).append('"');
      }
      b.append("]\n  env:\n");
      env().forEach((k, v) -> b.append("    ").append(k).append(": \"").append(v).append("\"\n"));
      return b.toString();
    }
  }
}
