package io.onceport.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * The load driver in a JVM of its own: the MCP client (and the direct POST) that calls the gateway,
 * the pass-through and the target, so the gateway's JVM holds the gateway alone, as {@code serve}
 * runs it — its CPU, its JIT compilations and its heap are then its own, not the driver's. Started
 * with the calls' settings ({@link BenchCalls}: target, MCP endpoint, token, pass-through or {@code
 * -}, run, tool, release, timeout in ms); prints {@code driver ready}, then answers one JSON line
 * (prefixed {@value BareChild#REPLY}) per command on stdin, as {@link BareChild} does:
 *
 * <ul>
 *   <li>{@code call SUBJECT N}: one call, timed here;
 *   <li>{@code batch SUBJECT C WINDOW_MS}: {@code C} callers for the window, with the calls' p50
 *       and p99, failures and busy answers.
 * </ul>
 *
 * Exits when its stdin closes (the bench's lifeline).
 */
public final class DriverChild {
  static final String READY = "driver ready";

  private final Map<String, Subject> subjects = new java.util.HashMap<>();
  private final BenchBatches batches;

  private DriverChild(Map<String, Subject.Call> calls, Duration timeout) {
    calls.forEach((k, c) -> subjects.put(k, new Subject(k, k, null, Set.of(), BenchRig.DRIVER, c)));
    this.batches = new BenchBatches(null, timeout);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println("usage: DriverChild TARGET MCP TOKEN PASSTHROUGH|- RUN TOOL RELEASE TIMEOUT_MS");
      System.exit(2);
    }
    Duration timeout = Duration.ofMillis(Long.parseLong(args[7]));
    BenchCalls settings = new BenchCalls(URI.create(args[0]), URI.create(args[1]), args[2],
        "-".equals(args[3]) ? null : URI.create(args[3]), args[4], args[5], args[6], timeout);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    new DriverChild(settings.calls(http), timeout).serve(System.out);
    System.exit(0);
  }

  private void serve(PrintStream out) throws Exception {
    out.println(READY);
    out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] p = line.trim().split(" ");
      ObjectNode reply;
      try {
        Subject s = subjects.get(p[1]);
        if (s == null) {
          throw new IllegalArgumentException("no subject " + p[1]);
        }
        reply = switch (p[0]) {
          case "call" -> call(s);
          case "batch" -> batch(s, Integer.parseInt(p[2]), Duration.ofMillis(Long.parseLong(p[3])));
          default -> throw new IllegalArgumentException("unknown command: " + line);
        };
      } catch (RuntimeException e) {
        reply = McpDriver.JSON.createObjectNode().put("error", String.valueOf(e));
      }
      out.println(BareChild.REPLY + reply);
      out.flush();
    }
  }

  /** One call timed here; its failure or busy answer is the reply's. */
  private ObjectNode call(Subject s) {
    Subject.Tally tally = new Subject.Tally();
    long nanos = s.timed(tally);
    ObjectNode r = McpDriver.JSON.createObjectNode().put("nanos", nanos);
    if (tally.busy > 0) {
      r.put("busy", tally.firstBusy);
    } else if (tally.pending > 0) {
      r.put("pending", tally.firstPending);
    } else if (tally.errors > 0) {
      r.put("failed", tally.firstError);
    }
    return r;
  }

  private ObjectNode batch(Subject s, int concurrency, Duration window) throws InterruptedException {
    Subject.Tally tally = new Subject.Tally();
    long jit0 = BenchBatches.jitMillis();
    BenchBatches.Ran ran = batches.run(s, concurrency, window, tally);
    ObjectNode r = McpDriver.JSON.createObjectNode().put("jit_ms", BenchBatches.jitMillis() - jit0);
    r.put("calls", ran.calls()).put("elapsed_nanos", ran.elapsedNanos())
        .put("p50_nanos", ran.latencies().isEmpty() ? -1 : (long) Subject.percentileNanos(ran.latencies(), 0.5))
        .put("p99_nanos", ran.latencies().isEmpty() ? -1 : (long) Subject.percentileNanos(ran.latencies(), 0.99));
    tally.into(r);
    return r;
  }

  // ---- the bench's side ---------------------------------------------------------------------

  /** A subject whose calls and batches run in {@code child}; its CPU counts {@code processes}, its JIT {@code jvm}'s. */
  static Subject subject(ChildProcess child, String key, String label, String baseline, Set<String> processes, String jvm,
      Duration timeout) {
    Subject s = new Subject(key, label, baseline, processes, jvm, null);
    s.timedCall = n -> {
      JsonNode r = reply(child.request("call " + key, timeout.plusSeconds(30)));
      if (r.has("busy")) {
        throw new Subject.BusyAnswer(r.path("busy").asText());
      }
      if (r.has("pending")) {
        throw new Subject.PendingAnswer(r.path("pending").asText());
      }
      if (r.has("failed")) {
        throw new IOException(r.path("failed").asText());
      }
      return r.path("nanos").asLong();
    };
    s.remoteBatch = (c, window) -> {
      JsonNode r = reply(child.request("batch " + key + " " + c + " " + window.toMillis(), window.plus(timeout).plusSeconds(30)));
      return new Subject.Batch(r.path("calls").asLong(), r.path("elapsed_nanos").asLong(), r.path("errors").asLong(),
          r.path("first_error").asText(null), r.path("jit_ms").asLong(), Map.of(), Map.of(), r.path("p50_nanos").asLong(-1),
          r.path("p99_nanos").asLong(-1), r.path("busy").asLong(), r.path("first_busy").asText(null), r.path("pending").asLong(),
          r.path("first_pending").asText(null));
    };
    return s;
  }

  private static JsonNode reply(String line) throws IOException {
    JsonNode r = McpDriver.JSON.readTree(line);
    if (r.has("error")) {
      throw new IOException("the driver's JVM: " + r.path("error").asText());
    }
    return r;
  }
}
