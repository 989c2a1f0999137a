package io.onceport.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An {@code onceport} command in a child JVM on the test classpath, for fault injection: started,
 * waited on until it prints a line, and killed with SIGKILL (only this process, by its handle).
 */
public final class ChildProcess implements AutoCloseable {
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();

  private final CompletableFuture<Void> drained;

  private ChildProcess(Process process) {
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

  /**
   * JVM options of every child: the C1 compiler only and the serial collector. A child lives for
   * seconds to a few minutes and spends them starting up (class loading, gRPC, the SDK), where C2
   * and G1's background threads only take CPU from the other JVMs on a 2-core machine. Override
   * with {@code -Donceport.childJvm="..."} (empty for the JVM's defaults).
   */
  static final List<String> JVM_OPTIONS = jvmOptions(System.getProperty("onceport.childJvm", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"));

  private static List<String> jvmOptions(String options) {
    List<String> all = new ArrayList<>(List.of("-Xmx512m"));
    for (String option : options.trim().split("\\s+")) {
      if (!option.isEmpty()) {
        all.add(option);
      }
    }
    return List.copyOf(all);
  }

  private static List<String> javaCommand() {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.onceport.app.Main"));
    return command;
  }

  /**
   * A child JVM on the test classpath running {@code mainClass} with {@code jvmOptions} after the
   * usual ones (a later {@code -Xmx} wins), and {@code env} added to its environment.
   */
  public static ChildProcess java(List<String> jvmOptions, String mainClass, Path workDir, java.util.Map<String, String> env,
      String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    return new ChildProcess(builder.start());
  }

  public static ChildProcess onceport(Path workDir, String... args) throws IOException {
    return onceport(workDir, java.util.Map.of(), args);
  }

  /** With {@code env} set in (or, for a null value, removed from) the child's environment. */
  public static ChildProcess onceport(Path workDir, java.util.Map<String, String> env, String... args) throws IOException {
    List<String> command = javaCommand();
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
    // Never a network install of the Temporal CLI unless a test asks for one (bin/onceport sets these).
    builder.environment().remove("ONCEPORT_TEMPORAL_INSTALLER");
    builder.environment().remove("ONCEPORT_INVOKED_AS");
    env.forEach((k, v) -> {
      if (v == null) {
        builder.environment().remove(k);
      } else {
        builder.environment().put(k, v);
      }
    });
    return new ChildProcess(builder.start());
  }

  /**
   * Waits for the process to exit and returns its status (its output read to the end); fails with
   * the output after {@code timeout}.
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("child still running after " + timeout + "; output:\n" + String.join("\n", output));
    }
    drained.orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
    return process.exitValue();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * As {@link #onceport}, started through {@code /bin/sh} with {@code umask} set first (the shell
   * {@code exec}s the JVM, so the process is the JVM itself).
   */
  public static ChildProcess onceportWithUmask(String umask, Path workDir, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "umask " + umask + " && exec \"$0\" \"$@\""));
    command.addAll(javaCommand());
    command.addAll(List.of(args));
    return new ChildProcess(new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start());
  }

  /** Waits until a line containing {@code text} was printed; fails with the output otherwise. */
  public ChildProcess awaitLine(String text, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (output.stream().anyMatch(l -> l.contains(text))) {
        return this;
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("child did not print '" + text + "'; alive=" + process.isAlive() + "; output:\n" + String.join("\n", output));
  }

  public long pid() {
    return process.pid();
  }

  public List<String> output() {
    return List.copyOf(output);
  }

  /** SIGKILL: no shutdown hooks, no cleanup — a crashed worker. */
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
