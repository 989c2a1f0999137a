package io.onceport.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Node 22 and the pinned npm test project in {@code src/test/node} for the tests that run the MCP
 * conformance suite and the TypeScript SDK client. Node 22 is the first {@code node} on PATH that is
 * v22 or later ({@code .ci/run} puts {@code bin/install-node22}'s directory there), else what
 * {@code bin/install-node22} installs. When neither works the test fails if the {@code CI}
 * environment variable is set (CI must not silently skip conformance) and is skipped otherwise.
 * Processes started here are ended by their own handle only.
 */
public final class Node22 {
  public static final Path PROJECT = Path.of("src/test/node").toAbsolutePath();
  private static Path bin;
  private static boolean installed;

  private Node22() {}

  /** The directory holding node, npm and npx (v22+), with the npm project installed by {@code npm ci}. */
  public static synchronized Path ready() throws IOException, InterruptedException {
    if (!installed) {
      ready(PROJECT);
      installed = true;
    }
    return bin;
  }

  /**
   * As {@link #ready()} for another pinned npm project (a directory with package.json and
   * package-lock.json under src/test): {@code npm ci} there unless its node_modules is current.
   */
  public static synchronized Path ready(Path project) throws IOException, InterruptedException {
    if (bin == null) {
      bin = locate();
    }
    Path hidden = project.resolve("node_modules/.package-lock.json");
    Path lock = project.resolve("package-lock.json");
    boolean current = Files.exists(hidden) && Files.getLastModifiedTime(hidden).compareTo(Files.getLastModifiedTime(lock)) >= 0;
    if (!current) {
      Result r = run(List.of(bin.resolve("npm").toString(), "ci", "--no-audit", "--no-fund", "--loglevel=error"),
          project, Duration.ofMinutes(5));
      unavailable(r.exit() == 0, "npm ci in " + project + " failed (exit " + r.exit() + "):\n" + r.output());
    }
    return bin;
  }

  private static Path locate() throws IOException, InterruptedException {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path node = Path.of(dir.isEmpty() ? "." : dir, "node");
      if (Files.isExecutable(node) && Files.isExecutable(node.resolveSibling("npm")) && isNode22(node)) {
        return node.getParent().toAbsolutePath();
      }
    }
    Path installer = Path.of("bin/install-node22").toAbsolutePath();
    Result r = run(List.of("bash", installer.toString()), Path.of(".").toAbsolutePath(), Duration.ofMinutes(5));
    String out = r.output().isEmpty() ? "" : r.output().get(r.output().size() - 1).trim();
    unavailable(r.exit() == 0 && !out.isEmpty() && isNode22(Path.of(out, "node")),
        "Node 22 is not on PATH and bin/install-node22 failed (exit " + r.exit() + "):\n" + String.join("\n", r.output()));
    return Path.of(out);
  }

  private static boolean isNode22(Path node) throws IOException, InterruptedException {
    Result r = run(List.of(node.toString(), "--version"), Path.of(".").toAbsolutePath(), Duration.ofSeconds(20));
    if (r.exit() != 0 || r.output().isEmpty()) {
      return false;
    }
    String v = r.output().get(0).trim();
    try {
      return v.startsWith("v") && Integer.parseInt(v.substring(1, v.indexOf('.'))) >= 22;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static void unavailable(boolean ok, String message) {
    if (ok) {
      return;
    }
    if (System.getenv("CI") != null) {
      Assertions.fail("CI is set, so Node 22 is required: " + message);
    }
    Assumptions.assumeTrue(false, "skipped: " + message);
  }

  /** What a finished process printed (stdout and stderr merged) and its exit status. */
  public record Result(int exit, List<String> output) {
    public String text() {
      return String.join("\n", output);
    }
  }

  /** Runs a command with Node 22 first on PATH; kills it (by its handle) after {@code timeout}. */
  public static Result run(List<String> command, Path dir, Duration timeout) throws IOException, InterruptedException {
    Started p = start(command, dir, Map.of());
    return p.await(timeout);
  }

  public static Started start(List<String> command, Path dir, Map<String, String> env) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    if (bin != null) {
      pb.environment().put("PATH", bin + ":" + System.getenv().getOrDefault("PATH", ""));
    }
    pb.environment().putAll(env);
    return new Started(pb.start());
  }

  /** A started process whose merged output is collected line by line. */
  public static final class Started implements AutoCloseable {
    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> drained;

    Started(Process process) {
      this.process = process;
      this.drained = CompletableFuture.runAsync(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            output.add(line);
          }
        } catch (IOException ignored) {
          // the process ended
        }
      });
    }

    public Process process() {
      return process;
    }

    public List<String> output() {
      return List.copyOf(output);
    }

    /** Waits until a line containing {@code text} was printed and returns it; fails with the output otherwise. */
    public String awaitLine(String text, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        for (String l : output) {
          if (l.contains(text)) {
            return l;
          }
        }
        if (!process.isAlive() && drained.isDone()) {
          break;
        }
        Thread.sleep(20);
      }
      throw new AssertionError("'" + text + "' not printed; alive=" + process.isAlive() + "; output:\n" + String.join("\n", output));
    }

    /** Waits for the exit; after {@code timeout} kills the process and fails. */
    public Result await(Duration timeout) throws InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError("process did not finish within " + timeout + "; output:\n" + String.join("\n", output));
      }
      drained.orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
      return new Result(process.exitValue(), new ArrayList<>(output));
    }

    /** SIGKILL, this process only. */
    public void kill9() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
      if (process.isAlive()) {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          kill9();
        }
      }
    }
  }
}
