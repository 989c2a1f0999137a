package io.onceport.activity.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An upstream the worker runs itself: the contract's argv, speaking newline-delimited JSON-RPC on
 * stdin/stdout (stderr goes to the log). Requests are multiplexed by id over the one process.
 *
 * <p>Every line is read only up to {@link #MESSAGE_CAP} ({@link BoundedLines}): a larger answer
 * is an unknown outcome with that reason, never a line held whole in memory.
 *
 * <p>Supervision: when the process dies, every request still waiting for an answer fails as
 * {@link McpFailure.Stage#UNKNOWN} (it may have acted before dying) and the process is started
 * again after a back-off (1 s, doubling to 30 s) and initialized, so the next dispatch finds it
 * ready; a dispatch arriving while it is down starts it at once. A request is {@code NOT_SENT} only
 * when the process could not be started or initialized, or was known dead before writing began.
 */
final class StdioUpstream implements McpUpstream {
  private static final Logger LOG = LoggerFactory.getLogger(StdioUpstream.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  /** The largest JSON-RPC message (one stdout line) read; as {@link HttpUpstream}'s answers and events. */
  static final int MESSAGE_CAP = McpUpstream.MESSAGE_CAP;
  /** A stderr line is logged abbreviated anyway: more of it is never held. */
  private static final int STDERR_LINE_CAP = 64 * 1024;

  private final List<String> command;
  private final Map<String, String> env;
  private final String workingDir;
  private final Consumer<String> listChanged;
  private final AtomicLong ids = new AtomicLong();
  private final ScheduledExecutorService supervisor;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();

  private Running running;
  private boolean closed;
  private long backoffMillis = 1000;

  StdioUpstream(List<String> command, Map<String, String> env, String workingDir, Consumer<String> listChanged) {
    this.command = List.copyOf(command);
    this.env = Map.copyOf(env);
    this.workingDir = workingDir;
    this.listChanged = listChanged;
    this.supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onceport-mcp-stdio-supervisor");
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public String describe() {
    return "stdio:" + String.join(" ", command);
  }

  /** One run of the process and its session. */
  private record Running(Process process, OutputStream stdin, McpSession session, long generation) {}

  private record Pending(CompletableFuture<JsonNode> answer, Consumer<JsonNode> notifications, long generation) {}

  /** The process's pid while it runs, else -1 (for tests that kill it). */
  synchronized long pid() {
    return running != null && running.process.isAlive() ? running.process.pid() : -1;
  }

  @Override
  public synchronized McpSession session(Map<String, String> headers, long timeoutMillis) throws McpFailure {
    if (closed) {
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": the worker is shutting down");
    }
    if (running != null && running.process.isAlive()) {
      return running.session;
    }
    running = start(timeoutMillis);
    return running.session;
  }

  @Override
  public synchronized void invalidate(McpSession session) {
    // A stdio session lives and dies with its process; nothing to forget.
  }

  private Running start(long timeoutMillis) throws McpFailure {
    long generation = System.nanoTime();
    Process p = launch();
    LOG.info("{}: started (pid {})", describe(), p.pid());
    Thread reader = new Thread(() -> readLoop(p, generation), "onceport-mcp-stdio-" + p.pid());
    reader.setDaemon(true);
    reader.start();
    Thread err = new Thread(() -> drainStderr(p), "onceport-mcp-stdio-err-" + p.pid());
    err.setDaemon(true);
    err.start();
    OutputStream stdin = p.getOutputStream();
    Running starting = new Running(p, stdin, null, generation);
    try {
      ObjectNode params = JSON.createObjectNode();
      params.put("protocolVersion", PROTOCOL_VERSION);
      params.putObject("capabilities");
      params.putObject("clientInfo").put("name", "onceport").put("version", "1");
      JsonNode m = exchange(starting, "initialize", params, () -> {}, n -> {}, timeoutMillis).message();
      JsonNode result = m.get("result");
      if (result == null || !result.isObject()) {
        throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": initialize was refused: " + m.get("error"));
      }
      String version = result.path("protocolVersion").asText("");
      if (!KNOWN_VERSIONS.contains(version)) {
        throw new McpFailure(McpFailure.Stage.NOT_SENT,
            describe() + ": the server speaks protocol version '" + version + "', not one of " + KNOWN_VERSIONS);
      }
      write(stdin, JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
      backoffMillis = 1000;
      return new Running(p, stdin, new McpSession(null, version, result.path("capabilities"), result.path("serverInfo")), generation);
    } catch (McpFailure | RuntimeException e) {
      p.destroyForcibly();
      if (e instanceof McpFailure f && f.stage() == McpFailure.Stage.NOT_SENT) {
        throw f;
      }
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": initialize failed: " + e.getMessage(), e);
    } catch (IOException e) {
      p.destroyForcibly();
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": initialize failed: " + e.getMessage(), e);
    }
  }

  /** The server's process, from the configured command, environment and working directory. */
  private Process launch() throws McpFailure {
    try {
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.environment().putAll(env);
      if (workingDir != null) {
        pb.directory(new File(workingDir));
      }
      return pb.start();
    } catch (IOException e) {
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": cannot start the server (" + e.getMessage() + ")", e);
    }
  }

  @Override
  public Answer request(McpSession session, Map<String, String> headers, String method, ObjectNode params,
      Runnable beforeWrite, Consumer<JsonNode> notifications, long timeoutMillis) throws McpFailure {
    Running r;
    synchronized (this) {
      r = running;
    }
    if (r == null || r.session != session || !r.process.isAlive()) {
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": the server is not running; " + method + " not sent");
    }
    return exchange(r, method, params, beforeWrite, notifications, timeoutMillis);
  }

  private Answer exchange(Running r, String method, ObjectNode params, Runnable beforeWrite,
      Consumer<JsonNode> notifications, long timeoutMillis) throws McpFailure {
    String id = "onceport-" + ids.incrementAndGet();
    ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    message.set("params", params);
    Pending p = new Pending(new CompletableFuture<>(), notifications, r.generation);
    pending.put(id, p);
    String what = method + " to " + describe();
    try {
      if (!r.process.isAlive()) {
        throw new McpFailure(McpFailure.Stage.NOT_SENT, what + ": the server died before the request was written");
      }
      beforeWrite.run();
      try {
        write(r.stdin, message);
      } catch (IOException e) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": writing the request failed part-way (" + e + ")", e);
      }
      try {
        return new Answer(p.answer.get(timeoutMillis, TimeUnit.MILLISECONDS), 0, null);
      } catch (TimeoutException e) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": no answer within " + Duration.ofMillis(timeoutMillis), e);
      } catch (ExecutionException e) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": " + e.getCause().getMessage(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": interrupted while waiting for the answer", e);
      }
    } finally {
      pending.remove(id);
    }
  }

  private static void write(OutputStream stdin, JsonNode message) throws IOException {
    byte[] line = (message.toString() + "\n").getBytes(StandardCharsets.UTF_8);
    synchronized (stdin) {
      stdin.write(line);
      stdin.flush();
    }
  }

  private void readLoop(Process p, long generation) {
    try (InputStream stdout = p.getInputStream()) {
      BoundedLines in = new BoundedLines(stdout, MESSAGE_CAP);
      for (BoundedLines.Line read; (read = in.next()) != null; ) {
        if (read.overCap()) {
          overCap(read, generation);
          continue;
        }
        String line = read.text();
        JsonNode m;
        try {
          m = JSON.readTree(line);
        } catch (IOException e) {
          LOG.warn("{}: ignoring a line that is not JSON on stdout: {}", describe(), HttpUpstream.abbreviate(line));
          continue;
        }
        if (m == null || !m.isObject()) {
          continue;
        }
        if (m.has("id") && (m.has("result") || m.has("error"))) {
          Pending waiting = pending.get(m.get("id").asText());
          if (waiting != null) {
            waiting.answer.complete(m);
          }
        } else if (m.has("method") && !m.has("id")) {
          if ("notifications/tools/list_changed".equals(m.get("method").asText())) {
            listChanged.accept(describe());
          }
          pending.values().forEach(w -> {
            if (w.generation == generation) {
              w.notifications.accept(m);
            }
          });
        } else if (m.has("method")) {
          LOG.warn("{}: ignoring the server's request {} (Onceport offers no client capabilities)", describe(),
              m.get("method").asText());
        }
      }
    } catch (IOException e) {
      // the pipe closed: the process is gone
    }
    died(p, generation);
  }

  /**
   * A line over {@link #MESSAGE_CAP}: never held whole (see {@link BoundedLines}). When its first
   * bytes name a waiting request's id, that request's answer was too large: its outcome is unknown
   * (the server may have acted), and the reason says so. A notification is dropped with a warning.
   * A line whose id cannot be read from its first {@link BoundedLines#PREFIX} bytes could be any
   * waiting request's answer: every one of this process's requests then ends as unknown.
   */
  private void overCap(BoundedLines.Line line, long generation) {
    JsonRpcHead head = JsonRpcHead.of(line.text());
    String tooLarge = "the server's message is too large (over " + MESSAGE_CAP + " bytes: " + line.bytes() + "); it was not read";
    Pending waiting = head.id() == null ? null : pending.get(head.id());
    if (waiting != null) {
      waiting.answer.completeExceptionally(new IOException(tooLarge));
    } else if (head.id() == null && head.method() == null) {
      LOG.warn("{}: {}, and its id is not in its first {} bytes: every waiting request's outcome is unknown", describe(),
          tooLarge, BoundedLines.PREFIX);
      pending.values().forEach(w -> {
        if (w.generation == generation) {
          w.answer.completeExceptionally(new IOException(tooLarge + ", and its id could not be read"));
        }
      });
    } else {
      LOG.warn("{}: dropped {} ({})", describe(), head.method() != null ? "a notification " + head.method() : "an answer to "
          + head.id() + ", which nothing waits for", tooLarge);
    }
  }

  private void died(Process p, long generation) {
    try {
      p.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    String exit = p.isAlive() ? "closed its stdout" : "exited with status " + p.exitValue();
    pending.values().forEach(w -> {
      if (w.generation == generation) {
        w.answer.completeExceptionally(new IOException("the server " + exit + " before answering"));
      }
    });
    long delay;
    synchronized (this) {
      boolean wasRunning = running != null && running.generation == generation;
      if (wasRunning) {
        running = null;
      }
      if (closed || !wasRunning) {
        return; // a process that died while starting: its starter reports it and retries
      }
      delay = backoffMillis;
      backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF.toMillis());
    }
    LOG.warn("{}: the server {}; restarting in {} ms", describe(), exit, delay);
    supervisor.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
  }

  private void restart() {
    try {
      session(Map.of(), 30_000);
    } catch (McpFailure e) {
      LOG.warn("{}: restart failed: {}", describe(), e.getMessage());
      long delay;
      synchronized (this) {
        if (closed) {
          return;
        }
        delay = backoffMillis;
        backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF.toMillis());
      }
      supervisor.schedule(this::restart, delay, TimeUnit.MILLISECONDS);
    }
  }

  private void drainStderr(Process p) {
    try (InputStream stderr = p.getErrorStream()) {
      BoundedLines err = new BoundedLines(stderr, STDERR_LINE_CAP);
      for (BoundedLines.Line line; (line = err.next()) != null; ) {
        LOG.info("{} [stderr] {}{}", describe(), HttpUpstream.abbreviate(line.text()),
            line.overCap() ? " (a line of " + line.bytes() + " bytes, cut)" : "");
      }
    } catch (IOException e) {
      // the process is gone
    }
  }

  @Override
  public void close() {
    Running r;
    synchronized (this) {
      closed = true;
      r = running;
      running = null;
    }
    supervisor.shutdownNow();
    if (r != null) {
      try {
        r.stdin.close();
      } catch (IOException ignored) {
        // already closed
      }
      r.process.destroy();
      try {
        if (!r.process.waitFor(5, TimeUnit.SECONDS)) {
          r.process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        r.process.destroyForcibly();
      }
    }
  }
}
