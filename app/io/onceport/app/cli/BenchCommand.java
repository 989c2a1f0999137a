package io.onceport.app.cli;

import io.onceport.app.bench.Bench;
import io.onceport.app.bench.BenchReport;
import io.onceport.app.bench.BenchSettings;
import io.onceport.app.engine.LocalEngine;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceport bench}: what a tools/call pays for execution identity, every figure next to its
 * baseline measured in the same run on the same engine ({@code --engine embedded|temporal-cli}).
 * Starts the engine, the demo target (a JVM of its own), a complete gateway, a bare-Temporal worker
 * (a JVM of its own) and (with Node 22) a TypeScript SDK pass-through on free loopback ports,
 * measures in interleaved rounds and a concurrency curve, prints the floor row and issue 27's goals,
 * stops everything and deletes its files. A lab tool, not part of the product's request path, and a
 * benchmark, not a test: {@code --budget tiny} makes a run of seconds.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Measure what a tools/call costs through the gateway against its baselines, in one run:",
        "direct POST to the target; a non-durable MCP pass-through (TypeScript SDK server, needs Node 22);",
        "bare Temporal (start a workflow running one activity that makes the same POST, wait for it);",
        "Onceport side-effecting calls with an SSE and with a JSON answer; Onceport read_only;",
        "a storm of identical concurrent calls; memory over many sequential calls; one call's history.",
        "Figures: C=1 p50 and p90, throughput at C=16, CPU and JIT per call (process CPU time / calls), bytes sent to",
        "the engine and workflow tasks per call, each with its ratio to the baseline (side-effecting vs bare Temporal,",
        "read_only vs pass-through); the floor row (bare + pass-through CPU per call); a concurrency curve (1, 16, 64,",
        "256 callers); each baseline checked against the direct POST; issue 27's goals as PASS/FAIL lines; host load.",
        "Every subject runs on one engine (--engine embedded or temporal-cli), bare Temporal on the same server."})
public final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--budget", defaultValue = "standard",
      description = "standard (3 rounds, 200 C=1 calls, 5 s batches at C=16, storm 1000, memory 10000) or tiny (seconds; for tests). Default: ${DEFAULT-VALUE}.")
  String budget;

  @Option(names = "--calls", description = "C=1 calls of each subject, spread over the rounds (standard 200, tiny 3).")
  Integer calls;

  @Option(names = "--warmup", description = "Unmeasured calls of each subject first (standard 30, tiny 1).")
  Integer warmup;

  @Option(names = "--warmup-batches", paramLabel = "N",
      description = "Unmeasured throughput batches of each subject after the warm-up calls, so the rounds measure "
          + "JIT-compiled code (standard 3, tiny 0).")
  Integer warmupBatches;

  @Option(names = "--warmup-served", paramLabel = "N",
      description = "Then more unmeasured batches of each subject until its JVM has answered N calls (default 0): the JIT "
          + "settles with calls answered, so this compares the gateway's JIT with bare's at the same point.")
  Long warmupServed;

  @Option(names = "--rounds", description = "Rounds (standard 3, tiny 1).")
  Integer rounds;

  @Option(names = "--concurrency", description = "Callers in a throughput batch (standard 16, tiny 4).")
  Integer concurrency;

  @Option(names = "--window", description = "Length of one throughput batch, ISO-8601 (standard PT5S, tiny PT0.4S).")
  String window;

  @Option(names = "--storm", description = "Identical concurrent calls in the storm (standard 1000, tiny 20).")
  Integer storm;

  @Option(names = "--storm-timeout", description = "How long the storm's calls may take, ISO-8601 (standard PT60S, tiny PT30S).")
  String stormTimeout;

  @Option(names = "--memory-calls", description = "Sequential distinct calls of the memory probe (standard 10000, tiny 20).")
  Integer memoryCalls;

  @Option(names = "--memory-histograms", paramLabel = "DIR",
      description = "Write the live heap's class histogram at each memory point to DIR/histogram-after-N.txt (to see what grows).")
  Path memoryHistograms;

  @Option(names = "--subjects", split = ",",
      description = "Only these: direct, passthrough, bare, sse, json, read, curve, storm, memory, history (default: all).")
  List<String> subjects;

  @Option(names = "--tool", defaultValue = "create_release",
      description = "Side-effecting demo tool to call; it takes service and version (default: ${DEFAULT-VALUE}).")
  String tool;

  @Mixin SoakOptions soak;

  @Option(names = "--contracts", defaultValue = "contracts", description = "The demo contracts (default: ${DEFAULT-VALUE}).")
  Path contracts;

  @Option(names = "--node", description = "Node 22 binary or its directory (default: the first node >= 22 on PATH, else bin/install-node22's).")
  Path node;

  @Option(names = "--node-project", defaultValue = "src/test/node",
      description = "npm project with the pinned TypeScript SDK and bench-passthrough.mjs (default: ${DEFAULT-VALUE}).")
  Path nodeProject;

  @Option(names = "--engine-in-process", description = "Run the embedded engine in the bench JVM (default: a child JVM, measured apart).")
  boolean engineInProcess;

  @Option(names = "--bare-jvm", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Run the bare Temporal baseline (its worker, client and callers) in a JVM of its own, so neither its code "
          + "nor the gateway's is compiled or collected in the other's JVM and each JIT figure is its own subject's "
          + "(default; --no-bare-jvm runs it in the bench JVM).")
  boolean bareJvm;

  @Option(names = "--curve", split = ",", paramLabel = "CALLERS",
      description = "The concurrency curve's numbers of callers (standard 1,16,64,256; tiny 1,4; 'none' for no curve).")
  List<String> curve;

  @Option(names = "--json", description = "Print the figures as one JSON document instead of the table (progress goes to stderr).")
  boolean json;

  @Option(names = "--report", paramLabel = "FILE",
      description = "Measure nothing: print the table of a result saved earlier with --json (e.g. to compare runs).")
  Path report;

  @Override
  public Integer call() throws Exception {
    if (soak.requested()) {
      return soak.run(spec, json);
    }
    if (report != null) {
      return printReport();
    }
    BenchSettings settings = settings();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter progress = json ? spec.commandLine().getErr() : out;
    var result = new Bench(settings, progress).run();
    if (json) {
      out.println(new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(result));
    } else {
      out.println();
      out.print(BenchReport.text(result));
    }
    out.flush();
    return failed(result) ? 1 : 0;
  }

  /** {@code --report}: the table of a result saved earlier, with nothing measured. */
  private int printReport() {
    com.fasterxml.jackson.databind.JsonNode saved;
    try {
      saved = new com.fasterxml.jackson.databind.ObjectMapper().readTree(report.toFile());
    } catch (java.io.IOException e) {
      throw new CliException("--report " + report + ": not a bench result (" + e.getMessage() + ")");
    }
    if (saved == null || !saved.has("subjects")) {
      throw new CliException("--report " + report + ": not a bench result (no subjects)");
    }
    spec.commandLine().getOut().print(BenchReport.text(saved));
    spec.commandLine().getOut().flush();
    return 0;
  }

  /** The budget named by {@code --budget}, with each option given on the command line instead of its default. */
  private BenchSettings settings() {
    BenchSettings.Builder b = switch (budget) {
      case "standard" -> BenchSettings.standard();
      case "tiny" -> BenchSettings.tiny();
      default -> throw new CliException("--budget must be standard or tiny, not " + budget);
    };
    if (calls != null) {
      b.calls = calls;
    }
    if (warmupBatches != null) {
      b.warmupBatches = warmupBatches;
    }
    if (warmupServed != null) {
      b.warmupServed = warmupServed;
    }
    b.tuning = soak.tuning.tuning();
    if (warmup != null) {
      b.warmup = warmup;
    }
    if (rounds != null) {
      b.rounds = rounds;
    }
    if (concurrency != null) {
      b.concurrency = concurrency;
    }
    if (window != null) {
      b.window = duration("--window", window);
    }
    if (storm != null) {
      b.stormCalls = storm;
    }
    if (stormTimeout != null) {
      b.stormTimeout = duration("--storm-timeout", stormTimeout);
    }
    if (memoryCalls != null) {
      b.memoryCalls = memoryCalls;
    }
    where(b);
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }

  /** What runs, where: subjects, tool, contracts, Node, the engine, the bare baseline's JVM, the curve. */
  private void where(BenchSettings.Builder b) {
    if (subjects != null && !subjects.isEmpty()) {
      b.subjects = subjects.stream().map(String::trim).collect(Collectors.toCollection(LinkedHashSet::new));
    }
    b.tool = tool;
    b.contracts = contracts;
    b.node = node;
    b.nodeProject = nodeProject;
    b.engineInProcess = engineInProcess;
    b.bareJvm = bareJvm;
    b.engine = engineChoice();
    if (curve != null) {
      b.curve = curve(curve);
    }
    b.memoryHistograms = memoryHistograms;
  }

  /** The engine {@code --engine} names, as serve chooses it (auto: temporal-cli when installed). */
  private LocalEngine.Choice engineChoice() {
    try {
      return ServeCommand.chooseEngine(ServeCommand.engineMode(soak.engine), spec.commandLine().getErr());
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }

  private static List<Integer> curve(List<String> values) {
    if (values.size() == 1 && values.get(0).trim().equalsIgnoreCase("none")) {
      return List.of();
    }
    List<Integer> out = new java.util.ArrayList<>();
    for (String v : values) {
      try {
        out.add(Integer.parseInt(v.trim()));
      } catch (NumberFormatException e) {
        throw new CliException("--curve must be numbers of callers such as 1,16,64,256 (or none), not " + String.join(",", values));
      }
    }
    return out;
  }

  /** Whether any subject counted errors or any section failed: the exit status is then 1. */
  private static boolean failed(com.fasterxml.jackson.databind.JsonNode result) {
    boolean failed = false;
    for (var s : result.path("subjects")) {
      failed |= s.path("errors").asLong() > 0;
    }
    for (String section : List.of("curve", "history", "storm", "memory")) {
      failed |= result.path(section).has("error");
    }
    return failed;
  }

  private static Duration duration(String option, String value) {
    try {
      return Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw new CliException(option + " must be an ISO-8601 duration such as PT5S, not " + value);
    }
  }
}
