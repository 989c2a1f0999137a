package io.onceport.app.bench;

import io.onceport.app.engine.LocalEngine;
import io.onceport.app.engine.WorkerTuning;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one {@code onceport bench} run measures and for how long.
 *
 * @param calls C=1 calls of each subject, spread over the rounds
 * @param warmup unmeasured calls of each subject before the first round
 * @param tuning the gateway worker's workflow cache and thread bounds ({@code --workflow-cache-size},
 *     {@code --workflow-threads}; {@code serve}'s defaults unless given)
 * @param warmupBatches unmeasured throughput batches of each subject after those calls, so that the
 *     rounds measure JIT-compiled code: the JIT's own CPU in the first minute of a JVM is as large as
 *     the calls' (measured: a third of the bench JVM's CPU in rounds 2 to 5 of a run without them)
 * @param window how long each C={@code concurrency} throughput batch runs, per subject and round
 * @param memoryCalls sequential distinct calls of the memory subject; memory is read after a tenth
 *     of them, after half and after all of them
 * @param node the Node binary or its directory, or null to look on PATH and in bin/install-node22's
 * @param engine the engine every subject runs on (the embedded engine or the Temporal CLI's dev
 *     server), chosen as {@code serve --engine} chooses it
 * @param engineInProcess run the embedded engine (and the demo target) in this JVM instead of child JVMs
 * @param bareJvm run the bare Temporal baseline (worker, client and its callers) in a JVM of its own
 * @param curve the numbers of callers of the concurrency curve (e.g. 1, 16, 64, 256), empty for none
 * @param warmupServed after the warm-up batches, more unmeasured batches of each subject until its
 *     JVM has answered this many calls (0: none): a JVM's JIT settles with the calls it has answered,
 *     and equal batches give bare three to four times the gateway's calls, so only this compares the
 *     two JITs at the same point
 * @param subjects which of {@link #ALL} to run
 * @param memoryHistograms a directory for the class histogram of the live heap at each memory point
 *     ({@code histogram-after-N.txt}, as {@code jcmd GC.class_histogram} prints it), or null for none
 */
public record BenchSettings(
    int rounds, int calls, int warmup, int concurrency, Duration window, int stormCalls, Duration stormTimeout,
    int memoryCalls, String tool, Path contracts, Path nodeProject, Path node, boolean engineInProcess, boolean bareJvm,
    Set<String> subjects, Duration callTimeout, int warmupBatches, WorkerTuning tuning, Path memoryHistograms,
    LocalEngine.Choice engine, List<Integer> curve, long warmupServed) {
  public static final List<String> ALL =
      List.of("direct", "passthrough", "bare", "sse", "json", "read", "curve", "storm", "memory", "history");
  /** The concurrency curve of the standard budget: the 1, 16, 64 and 256 callers. */
  public static final List<Integer> STANDARD_CURVE = List.of(1, 16, 64, 256);

  public BenchSettings {
    Objects.requireNonNull(window, "window == null");
    Objects.requireNonNull(stormTimeout, "stormTimeout == null");
    Objects.requireNonNull(tool, "tool == null");
    Objects.requireNonNull(contracts, "contracts == null");
    Objects.requireNonNull(nodeProject, "nodeProject == null");
    Objects.requireNonNull(callTimeout, "callTimeout == null");
    Objects.requireNonNull(engine, "engine == null");
    subjects = Set.copyOf(subjects);
    curve = List.copyOf(curve);
    for (int c : curve) {
      if (c < 1 || c > 1024) {
        throw new IllegalArgumentException("Invalid curve: " + c + " callers (1 to 1024)");
      }
    }
    if (engineInProcess && engine.kind() != LocalEngine.Kind.EMBEDDED) {
      throw new IllegalArgumentException("--engine-in-process needs --engine embedded (the Temporal CLI server is a process of its own)");
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("Invalid rounds: " + rounds + " (at least 1)");
    }
    if (calls < rounds) {
      throw new IllegalArgumentException("Invalid calls: " + calls + " (at least one per round, " + rounds + ")");
    }
    if (warmupServed < 0) {
      throw new IllegalArgumentException("Invalid budget: warm-up until " + warmupServed + " calls answered (must be 0 or more)");
    }
    if (warmupBatches < 0) {
      throw new IllegalArgumentException("Invalid budget: warmup batches " + warmupBatches + " (must be 0 or more)");
    }
    if (warmup < 0 || concurrency < 1 || stormCalls < 1 || memoryCalls < 10) {
      throw new IllegalArgumentException("Invalid budget: warmup " + warmup + ", concurrency " + concurrency
          + ", storm " + stormCalls + ", memory " + memoryCalls + " (warmup >= 0, concurrency >= 1, storm >= 1, memory >= 10)");
    }
    if (window.isNegative() || window.isZero() || stormTimeout.isNegative() || stormTimeout.isZero()) {
      throw new IllegalArgumentException("Invalid durations: window " + window + ", storm timeout " + stormTimeout);
    }
    for (String s : subjects) {
      if (!ALL.contains(s)) {
        throw new IllegalArgumentException("Unknown subject: " + s + " (expected some of " + String.join(", ", ALL) + ")");
      }
    }
  }

  boolean runs(String subject) {
    return subjects.contains(subject);
  }

  /** The figures of issue 12: 3 rounds, 200 C=1 calls, 5 s batches at C=16, a 1,000-call storm, 10,000 calls for memory. */
  public static Builder standard() {
    Builder b = new Builder(3, 200, 30, 16, Duration.ofSeconds(5), 1000, Duration.ofSeconds(60), 10_000);
    b.warmupBatches = 3;
    b.curve = STANDARD_CURVE;
    return b;
  }

  /** A run of seconds that exercises every subject once: for tests and a first look. */
  public static Builder tiny() {
    Builder b = new Builder(1, 3, 1, 4, Duration.ofMillis(400), 20, Duration.ofSeconds(30), 20);
    b.curve = List.of(1, 4);
    return b;
  }

  /** Budget presets plus per-figure overrides. */
  public static final class Builder {
    public int rounds;
    public int calls;
    public int warmup;
    public int concurrency;
    public Duration window;
    public int stormCalls;
    public Duration stormTimeout;
    public int memoryCalls;
    public String tool = "create_release";
    public Path contracts = Path.of("contracts");
    public Path nodeProject = Path.of("src/test/node");
    public Path node;
    public boolean engineInProcess;
    /** On by default: each JVM's JIT time is then its own subject's. */
    public boolean bareJvm = true;
    public LocalEngine.Choice engine = LocalEngine.choose(LocalEngine.Mode.EMBEDDED, java.util.Optional.empty());
    public List<Integer> curve = List.of();
    public Set<String> subjects = Set.copyOf(ALL);
    public Duration callTimeout = Duration.ofSeconds(60);
    public int warmupBatches;
    public WorkerTuning tuning = WorkerTuning.DEFAULT;
    public Path memoryHistograms;
    public long warmupServed;

    private Builder(int rounds, int calls, int warmup, int concurrency, Duration window, int stormCalls,
        Duration stormTimeout, int memoryCalls) {
      this.rounds = rounds;
      this.calls = calls;
      this.warmup = warmup;
      this.concurrency = concurrency;
      this.window = window;
      this.stormCalls = stormCalls;
      this.stormTimeout = stormTimeout;
      this.memoryCalls = memoryCalls;
    }

    public BenchSettings build() {
      return new BenchSettings(rounds, calls, warmup, concurrency, window, stormCalls, stormTimeout, memoryCalls, tool,
          contracts, nodeProject, node, engineInProcess, bareJvm, subjects, callTimeout, warmupBatches, tuning, memoryHistograms,
          engine, curve, warmupServed);
    }
  }
}
