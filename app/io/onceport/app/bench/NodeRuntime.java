package io.onceport.app.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Node 22 and the pinned npm project holding the TypeScript SDK, for the pass-through subject.
 * Node comes from {@code --node} (the binary or its directory), else the first {@code node} v22+
 * on PATH, else the directory {@code bin/install-node22} prints (it installs once from the npm
 * registry when missing). The SDK comes from {@code <project>/node_modules}; when it is missing and
 * npm is next to node, {@code npm ci} installs the pinned versions (bounded). Anything missing makes
 * the subject skipped, with the reason printed: the bench works without Node.
 */
final class NodeRuntime {
  final Path bin;
  final Path project;

  private NodeRuntime(Path bin, Path project) {
    this.bin = bin;
    this.project = project;
  }

  /** The runtime, or an exception whose message says why the pass-through cannot run. */
  static NodeRuntime locate(Path flag, Path project, java.io.PrintWriter log) throws IOException, InterruptedException {
    Path bin = flag == null ? null : Files.isDirectory(flag) ? flag : flag.toAbsolutePath().getParent();
    if (bin != null && !isNode22(bin.resolve("node"))) {
      throw new IllegalStateException("--node " + flag + " is not Node 22 or later");
    }
    if (bin == null) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
        Path node = Path.of(dir.isEmpty() ? "." : dir, "node");
        if (Files.isExecutable(node) && isNode22(node)) {
          bin = node.getParent().toAbsolutePath();
          break;
        }
      }
    }
    if (bin == null) {
      Path installer = Path.of("bin/install-node22").toAbsolutePath();
      if (!Files.isRegularFile(installer)) {
        throw new IllegalStateException("no Node 22 on PATH, no --node, and no bin/install-node22 here");
      }
      List<String> out = run(List.of("bash", installer.toString()), Path.of(".").toAbsolutePath(), null, Duration.ofMinutes(3));
      String last = out.isEmpty() ? "" : out.get(out.size() - 1).trim();
      if (last.isEmpty() || !isNode22(Path.of(last, "node"))) {
        throw new IllegalStateException("no Node 22 on PATH and bin/install-node22 did not provide one: " + String.join(" / ", out));
      }
      bin = Path.of(last);
    }
    Path dir = project.toAbsolutePath();
    if (!Files.isRegularFile(dir.resolve("bench-passthrough.mjs"))) {
      throw new IllegalStateException("no bench-passthrough.mjs in " + dir + " (see --node-project)");
    }
    if (!Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/sdk"))) {
      if (!Files.isExecutable(bin.resolve("npm")) || !Files.isRegularFile(dir.resolve("package-lock.json"))) {
        throw new IllegalStateException("the TypeScript SDK is not installed in " + dir + " and there is no npm to install it");
      }
      log.println("bench: installing the pinned TypeScript SDK in " + dir + " (npm ci)");
      log.flush();
      List<String> out = run(List.of(bin.resolve("npm").toString(), "ci", "--no-audit", "--no-fund", "--loglevel=error"),
          dir, bin, Duration.ofMinutes(5));
      if (!Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/sdk"))) {
        throw new IllegalStateException("npm ci in " + dir + " did not install the SDK: " + String.join(" / ", out));
      }
    }
    return new NodeRuntime(bin, dir);
  }

  private static boolean isNode22(Path node) {
    if (!Files.isExecutable(node)) {
      return false;
    }
    try {
      List<String> out = run(List.of(node.toString(), "--version"), Path.of(".").toAbsolutePath(), null, Duration.ofSeconds(20));
      String v = out.isEmpty() ? "" : out.get(0).trim();
      return v.startsWith("v") && Integer.parseInt(v.substring(1, v.indexOf('.'))) >= 22;
    } catch (IOException | RuntimeException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static List<String> run(List<String> command, Path dir, Path pathPrefix, Duration timeout)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    if (pathPrefix != null) {
      pb.environment().put("PATH", pathPrefix + java.io.File.pathSeparator + System.getenv().getOrDefault("PATH", ""));
    }
    Process p = pb.start();
    p.getOutputStream().close();
    List<String> lines = new ArrayList<>();
    Thread reader = new Thread(() -> {
      try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
        for (String l; (l = r.readLine()) != null; ) {
          synchronized (lines) {
            lines.add(l);
          }
        }
      } catch (IOException ignored) {
        // ended
      }
    });
    reader.setDaemon(true);
    reader.start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      p.waitFor(5, TimeUnit.SECONDS);
      throw new IOException(command.get(0) + " did not finish within " + timeout.toSeconds() + " s");
    }
    reader.join(2000);
    synchronized (lines) {
      return new ArrayList<>(lines);
    }
  }

  /** Starts the pass-through against {@code targetUrl}; its port is in {@link PassThrough#port}. */
  PassThrough startPassThrough(String targetUrl) throws IOException, InterruptedException {
    ChildProcess child = ChildProcess.start("passthrough",
        List.of(bin.resolve("node").toString(), "bench-passthrough.mjs", targetUrl, "0"), project, bin.toString());
    try {
      int port = Integer.parseInt(child.awaitLine("bench-passthrough listening on ", Duration.ofSeconds(60)));
      return new PassThrough(child, port);
    } catch (RuntimeException e) {
      child.close();
      throw e;
    }
  }

  record PassThrough(ChildProcess process, int port) implements AutoCloseable {
    @Override
    public void close() {
      process.close();
    }
  }
}
