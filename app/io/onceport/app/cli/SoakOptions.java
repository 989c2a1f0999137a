package io.onceport.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.soak.SoakBench;
import io.onceport.app.soak.SoakSettings;
import io.onceport.app.engine.LocalEngine;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench --soak DURATION} and the options of the soak (a picocli mixin of {@link BenchCommand}). */
final class SoakOptions {
  @Option(names = "--soak", paramLabel = "DURATION", converter = LooseDuration.class,
      description = {"Soak instead of the latency bench: a steady mix of calls and waiting executions for DURATION (PT10M, 10m, 90s, 2h),",
          "printing RSS, heap after a full GC, threads, CPU and history size per execution every --interval."})
  Duration soak;

  @Option(names = "--engine", paramLabel = "auto|embedded|temporal-cli", defaultValue = "auto",
      description = "The engine every subject runs on (the bench and the soak), chosen as `serve --engine` chooses it: "
          + "auto picks temporal-cli when the binary is installed (default: ${DEFAULT-VALUE}).")
  String engine;

  @Option(names = "--waiting", paramLabel = "N", defaultValue = "1000",
      description = "Soak: executions kept waiting for session authorization throughout (default: ${DEFAULT-VALUE}).")
  int waiting;

  @Option(names = "--waiting-per-session", paramLabel = "N", defaultValue = "1",
      description = "Soak: waiting executions per agent session (default: ${DEFAULT-VALUE}: each one a new session's first call).")
  int waitingPerSession;

  @Option(names = "--rate", paramLabel = "CALLS_PER_S|max", defaultValue = "20",
      description = "Soak: calls per second in the steady phase, 0 for none (idle with the waiting executions), max for "
          + "as fast as the callers go (default: ${DEFAULT-VALUE}).")
  String rate;

  @Option(names = "--callers", paramLabel = "N", defaultValue = "4",
      description = "Soak: concurrent MCP sessions making the calls (default: ${DEFAULT-VALUE}).")
  int callers;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "PT30S", converter = LooseDuration.class,
      description = "Soak: time between samples (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(names = "--sample-calls", paramLabel = "N", defaultValue = "0",
      description = "Soak: also sample each time the completed count crosses a multiple of N (e.g. 5000; default: off).")
  long sampleCalls;

  @Option(names = "--soak-warmup", paramLabel = "N", defaultValue = "50",
      description = "Soak: calls before the baseline sample (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(names = "--soak-until", paramLabel = "N", defaultValue = "0",
      description = "Soak: end the steady phase once N calls were made in all, warm-up included (e.g. 50000), "
          + "or when the duration ends, whichever comes first (default: 0, the duration alone).")
  long until;

  @Mixin WorkerTuningOptions tuning;

  boolean requested() {
    return soak != null;
  }

  SoakSettings settings() {
    double calls;
    if (rate.equalsIgnoreCase("max")) {
      calls = Double.POSITIVE_INFINITY;
    } else {
      try {
        calls = Double.parseDouble(rate);
      } catch (NumberFormatException e) {
        throw new CliException("--rate must be a number of calls per second or 'max', not '" + rate + "'");
      }
    }
    LocalEngine.Mode mode = ServeCommand.engineMode(engine);
    try {
      return new SoakSettings(soak, mode, waiting, waitingPerSession, calls, callers, interval, sampleCalls, warmup,
          tuning.tuning(), until, null);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
  }

  /** Runs the soak: sample lines and the summary as text, or (with {@code json}) one JSON document on stdout and progress on stderr. */
  int run(CommandLine.Model.CommandSpec spec, boolean json) throws Exception {
    SoakSettings settings = settings();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter progress = json ? err : out;
    ObjectNode report;
    try {
      report = new SoakBench(settings, line -> {
        progress.println(line);
        progress.flush();
      }).run();
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
    if (json) {
      out.println(report.toPrettyString());
    } else {
      SoakBench.summaryLines(report).forEach(out::println);
    }
    out.flush();
    return 0;
  }

  /** ISO-8601 ({@code PT10M}) or a number with {@code s}, {@code m} or {@code h} ({@code 10m}). */
  static final class LooseDuration implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)([smh])");

    @Override
    public Duration convert(String value) {
      Matcher m = SHORT.matcher(value.trim().toLowerCase(Locale.ROOT));
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        };
      }
      try {
        return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (PT10M, 10m, 90s, 2h)");
      }
    }
  }
}
