package io.onceport.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.demo.DemoTarget;
import io.onceport.app.demo.DemoTarget.Handling;
import io.onceport.app.demo.DemoTarget.LedgerEntry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded {@code tools/call} load from concurrent MCP clients for the multi-process fault test,
 * and the figures computed afterwards from the demo target's ledger and the execution records.
 *
 * <p>Each <em>intent</em> is one action an agent wants done once: a unique set of arguments for
 * one of four tools, one per replay class. Its calls carry a fresh JSON-RPC id every time; some
 * intents are sent by two clients at once (duplicates); some clients give up early (a short HTTP
 * timeout closes the connection) and call again; every client calls again after a connection
 * failure (the front end was killed) or a not-yet-settled answer, and stops once any caller of the
 * intent received a settled answer (completed, failed, needs_review, …) — no call of an intent is
 * ever sent after that, so every second execution of an intent that acts is a duplicate side
 * effect, not a new intent.
 *
 * <p>The contracts ({@link #writeContracts}) give every send a short HTTP timeout so that the
 * demo target's {@code delay} fault is "slow beyond the timeout", and tag each request so the
 * ledger attributes it to its intent: the release version or the notification message.
 */
public final class FaultLoad {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Every send's HTTP timeout in the fault contracts. */
  public static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);
  /** The {@code delay} fault: beyond {@link #SEND_TIMEOUT}, and the target acts at its end. */
  public static final String SLOW = DemoTarget.DELAY + 3500;
  /** The target faults armed during the load, in turn. */
  public static final List<String> FAULTS = List.of(DemoTarget.DROP_AFTER_ACCEPT, DemoTarget.DROP_WITHOUT_ACTING, SLOW,
      "status=500", "status=503,retry-after=0");
  private static final Set<String> SETTLED = Set.of("completed", "failed", "needs_review", "rejected", "cancelled", "expired");

  /** The four tools of the load, one per replay class. */
  public enum Kind {
    IRREVERSIBLE("send_notification", "irreversible", true),
    STATUS_QUERY("create_release", "status_query", true),
    IDEMPOTENCY_KEY("create_release_keyed", "idempotency_key", false),
    READ_ONLY("list_releases_for", "read_only", false);

    public final String tool;
    public final String replayClass;
    /** At most one act per execution: a second request under the same key must never act (irreversible, status_query). */
    public final boolean atMostOnce;

    Kind(String tool, String replayClass, boolean atMostOnce) {
      this.tool = tool;
      this.replayClass = replayClass;
      this.atMostOnce = atMostOnce;
    }

    public boolean sideEffect() {
      return this != READ_ONLY;
    }
  }

  /**
   * The size of one run.
   *
   * @param intents how many distinct actions are requested
   * @param clients concurrent intents in flight (each duplicate adds one more client)
   * @param duplicateEvery every n-th intent is sent by two clients at once
   * @param impatientEvery every n-th call gives up after a short, random timeout and is called again
   * @param budget how long the load may take before its clients stop calling
   */
  public record Settings(int intents, int clients, int duplicateEvery, int impatientEvery, Duration budget, long seed) {
    public Settings {
      if (intents < 1 || clients < 1 || duplicateEvery < 1 || impatientEvery < 1) {
        throw new IllegalArgumentException("Invalid load settings: " + intents + " intents, " + clients + " clients");
      }
      Objects.requireNonNull(budget, "budget == null");
    }
  }

  /** One intended action and what its callers were told. */
  public static final class Intent {
    public final int n;
    public final Kind kind;
    public final String tag;
    final JsonNode arguments;
    final boolean duplicate;
    volatile boolean done;
    /** Execution ids this intent's calls were answered with. */
    public final Set<String> answeredIds = ConcurrentHashMap.newKeySet();
    /** The settled state first seen by a caller, or null. */
    public volatile String settledState;
    final AtomicInteger calls = new AtomicInteger();

    Intent(int n, Kind kind, String tag, JsonNode arguments, boolean duplicate) {
      this.n = n;
      this.kind = kind;
      this.tag = tag;
      this.arguments = arguments;
      this.duplicate = duplicate;
    }
  }

  /** Counters of what the clients did. */
  public static final class ClientStats {
    public final AtomicLong calls = new AtomicLong();
    public final AtomicLong gaveUp = new AtomicLong();
    public final AtomicLong connectionFailures = new AtomicLong();
    public final AtomicLong pendingAnswers = new AtomicLong();
    public final AtomicLong busyOrErrors = new AtomicLong();
    public final AtomicLong busy = new AtomicLong();
    public final AtomicLong reinitialized = new AtomicLong();
    public final List<String> unexpected = new CopyOnWriteArrayList<>();

    @Override
    public String toString() {
      return calls + " tools/call requests (" + gaveUp + " given up by the client and called again, " + connectionFailures
          + " connection failures, " + pendingAnswers + " not-yet-settled answers, " + busy + " busy answers (retried), " + busyOrErrors + " other errors, "
          + reinitialized + " re-initialized sessions)";
    }
  }

  private final Settings settings;
  private final String run;
  private final String token;
  private final java.util.function.IntSupplier port;
  private final List<Intent> intents = new ArrayList<>();
  public final ClientStats stats = new ClientStats();
  private final AtomicLong rpcIds = new AtomicLong(1000);
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(3)).build();
  private final AtomicInteger finished = new AtomicInteger();

  /**
   * @param port the front end's current MCP port (asked before every call: it may have been restarted)
   */
  public FaultLoad(Settings settings, String run, String token, java.util.function.IntSupplier port) {
    this.settings = settings;
    this.run = run;
    this.token = token;
    this.port = port;
    Random random = new Random(settings.seed());
    Kind[] kinds = Kind.values();
    for (int i = 0; i < settings.intents(); i++) {
      Kind kind = kinds[random.nextInt(kinds.length)];
      String tag = run + "-" + i;
      ObjectNode args = JSON.createObjectNode();
      switch (kind) {
        case IRREVERSIBLE -> args.put("message", tag);
        case STATUS_QUERY, IDEMPOTENCY_KEY -> args.put("service", "fault").put("version", tag);
        case READ_ONLY -> args.put("service", tag);
      }
      intents.add(new Intent(i, kind, tag, args, i % settings.duplicateEvery() == 0));
    }
  }

  /**
   * Writes the load's contracts into {@code dir} (a {@link Cluster}'s contracts directory, before
   * any front end starts): the shipped three side-effecting tools with {@link #SEND_TIMEOUT}, a
   * status settle of the same length, and a read-only tool whose URL names its intent (its timeout is
   * longer than the call wait, so it runs as an execution, not on the front end's direct read path).
   */
  public static void writeContracts(Path dir, DemoTarget target) throws IOException {
    String base = target.url();
    for (String name : List.of("create_release.yaml", "create_release_keyed.yaml", "send_notification.yaml")) {
      Path file = dir.resolve(name);
      String text = Files.readString(file).replace("timeout: PT30S", "timeout: PT" + SEND_TIMEOUT.toSeconds() + "S")
          .replace("settle: PT30S", "settle: PT" + SEND_TIMEOUT.toSeconds() + "S");
      Files.writeString(file, text);
    }
    Files.writeString(dir.resolve("list_releases_for.yaml"), String.join("\n",
        "tool: list_releases_for",
        "description: List releases for one service (read-only; re-sent under the same key after a lost answer).",
        "input_schema:",
        "  type: object",
        "  required: [service]",
        "  properties:",
        "    service: {type: string}",
        "  additionalProperties: false",
        "channel: http",
        "http:",
        "  method: GET",
        "  url: " + base + "/v1/releases?service={{service}}",
        "  idempotency_header: Idempotency-Key",
        // Longer than the front end's call wait (PT10S): the read keeps an execution identity and
        // takes the durable path (the read_only replay class), not the front end's direct read path.
        "  timeout: PT12S",
        "replay:",
        "  class: read_only",
        "  attach_window: PT5M",
        ""));
  }

  public List<Intent> intents() {
    return Collections.unmodifiableList(intents);
  }

  /** Intents whose callers have all stopped (settled, or out of budget). */
  public int finished() {
    return finished.get();
  }

  /** Runs the whole load; returns when every intent's callers have stopped. */
  public void run() throws InterruptedException {
    long deadline = System.nanoTime() + settings.budget().toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(settings.clients(), daemon("fault-load"));
    ExecutorService duplicates = Executors.newCachedThreadPool(daemon("fault-load-dup"));
    try {
      List<Future<?>> all = new ArrayList<>();
      for (Intent intent : intents) {
        all.add(pool.submit(() -> {
          CompletableFuture<Void> second = intent.duplicate
              ? CompletableFuture.runAsync(() -> callUntilSettled(intent, deadline, 1), duplicates)
              : CompletableFuture.completedFuture(null);
          callUntilSettled(intent, deadline, 0);
          second.join();
          finished.incrementAndGet();
        }));
      }
      for (Future<?> f : all) {
        try {
          f.get(settings.budget().toMillis() + 60_000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          stats.unexpected.add("a client failed: " + e);
        }
      }
    } finally {
      pool.shutdownNow();
      duplicates.shutdownNow();
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** One client: its own MCP session; calls until the intent settled for anyone or the deadline passed. */
  private void callUntilSettled(Intent intent, long deadline, int client) {
    Random random = new Random(settings.seed() * 31 + intent.n * 7L + client);
    String session = null;
    int sessionPort = -1;
    while (!intent.done && System.nanoTime() < deadline) {
      int p = port.getAsInt();
      try {
        if (session == null || sessionPort != p) {
          session = initialize(p);
          sessionPort = p;
        }
        long rpc = rpcIds.incrementAndGet();
        intent.calls.incrementAndGet();
        boolean impatient = stats.calls.incrementAndGet() % settings.impatientEvery() == 0;
        Duration timeout = impatient ? Duration.ofMillis(300 + random.nextInt(2200)) : Duration.ofSeconds(40);
        HttpResponse<String> r = post(p, session, MCP_CALL(rpc, intent.kind.tool, intent.arguments), timeout);
        if (r.statusCode() == 404) {
          // The session is unknown to this front end: start a new one, as SDK clients do.
          stats.reinitialized.incrementAndGet();
          session = null;
          continue;
        }
        JsonNode answer = parse(r);
        JsonNode summary = answer.at("/result/_meta/onceport~1execution");
        if (answer.at("/result/structuredContent/busy").asBoolean(false)) {
          // An honest "busy, retry": the engine turned the attach away; the same call is made again.
          stats.busy.incrementAndGet();
          String id = answer.at("/result/structuredContent/execution_id").asText("");
          if (id.startsWith("act_")) {
            intent.answeredIds.add(id);
          }
          pause(random, 200, 600);
          continue;
        }
        if (r.statusCode() != 200 || answer.has("error") || summary.isMissingNode()) {
          stats.busyOrErrors.incrementAndGet();
          if (stats.unexpected.size() < 20) {
            stats.unexpected.add(intent.kind.tool + " " + intent.tag + ": HTTP " + r.statusCode() + " " + r.body());
          }
          pause(random, 200, 600);
          continue;
        }
        String id = summary.path("execution_id").asText("");
        if (id.startsWith("act_")) {
          intent.answeredIds.add(id);
        }
        String state = summary.path("state").asText();
        if (SETTLED.contains(state)) {
          if (intent.settledState == null) {
            intent.settledState = state;
          }
          intent.done = true;
        } else {
          stats.pendingAnswers.incrementAndGet();
          pause(random, 50, 250);
        }
      } catch (HttpTimeoutException e) {
        // The client gave up on this call (its connection is closed) and calls again with a new id.
        stats.gaveUp.incrementAndGet();
      } catch (IOException e) {
        // The front end is down or the connection broke: call again once it is back.
        stats.connectionFailures.incrementAndGet();
        session = null;
        pause(random, 200, 500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void pause(Random random, int min, int max) {
    try {
      Thread.sleep(min + random.nextInt(max - min));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @SuppressWarnings("checkstyle:MethodName")
  private static String MCP_CALL(long id, String tool, JsonNode arguments) {
    return McpClient.callBody(id, tool, arguments);
  }

  private String initialize(int p) throws IOException, InterruptedException {
    HttpResponse<String> r = post(p, null, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"fault-load\",\"version\":\"1.0\"}}}", Duration.ofSeconds(20));
    if (r.statusCode() != 200) {
      throw new IOException("initialize answered " + r.statusCode() + ": " + r.body());
    }
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow(() -> new IOException("no Mcp-Session-Id"));
    post(p, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", Duration.ofSeconds(20));
    return session;
  }

  private HttpResponse<String> post(int p, String session, String body, Duration timeout) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/mcp")).timeout(timeout)
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON-RPC message of a JSON answer, or the last one of an SSE answer; an empty object otherwise. */
  private static JsonNode parse(HttpResponse<String> r) {
    String body = r.body();
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      String last = null;
      for (String line : body.split("\n")) {
        if (line.startsWith("data:") && !line.substring(5).isBlank()) {
          last = line.substring(5).trim();
        }
      }
      body = last;
    }
    try {
      return body == null || body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
    } catch (IOException e) {
      return JSON.createObjectNode();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Figures

  /** What one execution's record says, as far as the figures need it. */
  public record Seen(String executionId, String tool, String state, boolean settled, int sendsOnRecord, String problem) {}

  /**
   * The figures of one run.
   *
   * @param intendedActions side-effecting intents requested (read-only intents in {@code reads})
   * @param sends requests the target received on its action endpoints (POSTs, repeated keys included)
   * @param duplicateSideEffects acts beyond the first for one intent under a different key (execution)
   * @param sameKeyDoubleActs for irreversible and status_query executions: requests under a key that
   *     acted or would have acted again (acted, replayed by the target's dedup, or refused as still processing)
   * @param stuck executions neither final nor needs_review after the load drained
   * @param lost execution ids a call was answered with that cannot be found
   */
  public record Figures(long intendedActions, long sends, long duplicateSideEffects, long sameKeyDoubleActs, long stuck,
      long lost, long reads, long readSends, long executions, long acts, long unsettledIntents, Map<String, Long> faultsApplied,
      List<String> details) {
    public String line(String engine) {
      return "fault test [" + engine + "]: intended actions " + intendedActions + ", sends " + sends + ", duplicate side effects "
          + duplicateSideEffects + ", same-key double acts " + sameKeyDoubleActs + ", stuck executions " + stuck
          + ", lost executions " + lost + " (" + acts + " target acts, " + executions + " executions, " + reads
          + " read-only intents with " + readSends + " reads, " + unsettledIntents + " intents unsettled for their clients; faults applied "
          + faultsApplied + ")";
    }
  }

  /**
   * Computes the figures from the ledger and the records ({@code seen}, keyed by execution id:
   * every execution the engine lists plus every id a call was answered with or the target saw).
   */
  public Figures figures(List<LedgerEntry> ledger, Map<String, Seen> seen) {
    Map<String, Intent> byTag = new HashMap<>();
    intents.forEach(i -> byTag.put(i.tag, i));
    List<String> details = new ArrayList<>();
    long sends = 0;
    long readSends = 0;
    long acts = 0;
    Map<String, Map<String, Long>> actsByIntentAndKey = new LinkedHashMap<>();
    Map<String, List<LedgerEntry>> byKey = new LinkedHashMap<>();
    Map<String, Long> faults = new java.util.TreeMap<>();
    for (LedgerEntry e : ledger) {
      boolean action = e.method().equals("POST") && (e.path().equals("/v1/releases") || e.path().equals("/v1/notifications"));
      boolean read = e.method().equals("GET") && e.path().equals("/v1/releases");
      if (e.fault() != null) {
        faults.merge(e.fault(), 1L, Long::sum);
      }
      if (read) {
        readSends++;
      }
      if (!action) {
        continue;
      }
      sends++;
      String tag = tagOf(e);
      if (tag == null || !byTag.containsKey(tag)) {
        continue; // not this load's request
      }
      if (e.key() != null) {
        byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
      }
      if (e.acted()) {
        acts++;
        actsByIntentAndKey.computeIfAbsent(tag, t -> new LinkedHashMap<>()).merge(String.valueOf(e.key()), 1L, Long::sum);
      }
    }
    long duplicates = 0;
    for (var entry : actsByIntentAndKey.entrySet()) {
      if (entry.getValue().size() > 1) {
        duplicates += entry.getValue().size() - 1;
        details.add("duplicate side effect: intent " + entry.getKey() + " (" + byTag.get(entry.getKey()).kind.tool + ") acted under keys "
            + entry.getValue());
      }
    }
    long sameKey = 0;
    for (var entry : byKey.entrySet()) {
      Intent intent = byTag.get(tagOf(entry.getValue().get(0)));
      if (!intent.kind.atMostOnce) {
        continue;
      }
      long again = entry.getValue().stream().filter(e -> e.acted() || e.handling() == Handling.REPLAYED
          || e.handling() == Handling.PROCESSING || Integer.valueOf(409).equals(e.status())).count();
      if (again > 1) {
        sameKey += again - 1;
        details.add("same-key double act: " + entry.getKey() + " (" + intent.kind.tool + ") " + describe(entry.getValue()));
      }
    }
    long stuck = 0;
    long lost = 0;
    for (Seen s : seen.values()) {
      if (s.problem() != null && s.problem().startsWith("lost")) {
        lost++;
        details.add("lost: " + s.executionId() + " " + s.problem());
      } else if (!s.settled()) {
        stuck++;
        details.add("stuck: " + s.executionId() + " " + s.tool() + " " + s.state() + (s.problem() == null ? "" : " " + s.problem()));
      }
      long received = byKey.getOrDefault(s.executionId(), List.of()).size();
      if (s.problem() == null && received > s.sendsOnRecord()) {
        details.add("hidden send: " + s.executionId() + " reached the target " + received + " times, " + s.sendsOnRecord() + " sends on the record");
      }
    }
    long intended = intents.stream().filter(i -> i.kind.sideEffect()).count();
    long reads = intents.size() - intended;
    long unsettled = intents.stream().filter(i -> i.settledState == null).count();
    return new Figures(intended, sends, duplicates, sameKey, stuck, lost, reads, readSends, seen.size(), acts, unsettled, faults, details);
  }

  private static String describe(List<LedgerEntry> entries) {
    StringBuilder b = new StringBuilder();
    for (LedgerEntry e : entries) {
      b.append("[").append(e.handling().wireName()).append(" ").append(e.status()).append(" ").append(e.fault())
          .append(" ").append(e.time()).append("]");
    }
    return b.toString();
  }

  /** The intent tag a ledger request carries: the release version or the notification message. */
  private static String tagOf(LedgerEntry e) {
    try {
      JsonNode body = JSON.readTree(e.body());
      if (body == null) {
        return null;
      }
      JsonNode tag = e.path().equals("/v1/notifications") ? body.get("message") : body.get("version");
      return tag == null ? null : tag.asText();
    } catch (IOException ex) {
      return null;
    }
  }

  /** Time helper for reports. */
  public static String since(Instant start) {
    return Duration.between(start, Instant.now()).toMillis() / 100 / 10.0 + " s";
  }
}
