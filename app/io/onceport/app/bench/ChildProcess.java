package io.onceport.app.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A process the bench started (the engine JVM, the Node pass-through): its output collected line by
 * line, its CPU time, and an end by its own handle only. Its stdin stays open as a lifeline: both
 * children exit when it closes, so a bench killed with {@code kill -9} leaves nothing running.
 */
final class ChildProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  /** Lines starting with {@link BareChild#REPLY}: answers to {@link #request}, kept apart from the output. */
  private final java.util.concurrent.BlockingQueue<String> replies = new java.util.concurrent.LinkedBlockingQueue<>();
  private final Thread drain;

  private ChildProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    this.drain = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (line.startsWith(BareChild.REPLY)) {
            replies.add(line.substring(BareChild.REPLY.length()));
          } else if (output.size() < 10_000) {
            output.add(line);
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "bench-child-" + name);
    drain.setDaemon(true);
    drain.start();
  }

  static ChildProcess start(String name, List<String> command, Path dir, String pathPrefix) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    if (pathPrefix != null) {
      pb.environment().put("PATH", pathPrefix + java.io.File.pathSeparator + System.getenv().getOrDefault("PATH", ""));
    }
    return new ChildProcess(name, pb.start());
  }

  /** Waits for a line starting with {@code prefix}; returns the rest of it. */
  String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (String l : output) {
        if (l.startsWith(prefix)) {
          return l.substring(prefix.length()).trim();
        }
      }
      if (!process.isAlive()) {
        drain.join(2000);
        break;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException(name + " did not print '" + prefix + "' within " + timeout.toSeconds() + " s"
        + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + "; its output:\n" + String.join("\n", output));
  }

  /**
   * Writes one command line to the child's stdin and waits for its one-line answer; one request at
   * a time.
   */
  synchronized String request(String command, Duration timeout) throws IOException, InterruptedException {
    var stdin = process.getOutputStream();
    stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String reply = replies.poll(Math.min(500, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)), TimeUnit.MILLISECONDS);
      if (reply != null) {
        return reply;
      }
      if (!process.isAlive() || System.nanoTime() - deadline >= 0) {
        close(); // a late answer must not be taken for the next request's
        throw new IOException(name + " did not answer '" + command + "' within " + timeout.toSeconds() + " s"
            + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + "; its output:\n" + String.join("\n", output));
      }
    }
  }

  long pid() {
    return process.pid();
  }

  /** User + system CPU time so far, in nanoseconds (0 when the platform does not say). */
  long cpuNanos() {
    return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  /** Resident set size in bytes from /proc (Linux), or -1. */
  long rssBytes() {
    return Rss.of(Path.of("/proc/" + process.pid() + "/status"));
  }

  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    try {
      process.getOutputStream().close(); // the lifeline: a well-behaved child exits on EOF
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(5, TimeUnit.SECONDS);
        }
      }
    } catch (IOException | InterruptedException e) {
      process.destroyForcibly();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** VmRSS from a /proc status file. */
  static final class Rss {
    private Rss() {}

    static long of(Path status) {
      try {
        for (String line : Files.readAllLines(status)) {
          if (line.startsWith("VmRSS:")) {
            String[] p = line.substring(6).trim().split("\\s+");
            return Long.parseLong(p[0]) * 1024;
          }
        }
      } catch (IOException | RuntimeException e) {
        return -1;
      }
      return -1;
    }

    static long self() {
      return of(Path.of("/proc/self/status"));
    }
  }
}
