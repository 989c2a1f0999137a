package io.onceport.app.bench;

import static io.onceport.app.bench.Bench.put;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;

/**
 * The concurrency curve: one batch of each subject but the direct POST at each number of callers of
 * {@code --curve} (standard: 1, 16, 64, 256), fewest callers first, the subjects in turn at each
 * point, so that load on the machine falls on all of them alike. Each point: throughput, the calls'
 * p50 and p99, failures, busy answers (every call is a distinct request, so a busy answer is the
 * gateway turning away a call it could have run), answers given before the outcome ("dispatched,
 * outcome pending": the gateway's wait ran out), CPU per call and how idle the host stayed.
 */
final class BenchCurve {
  /** The subjects on the curve: the baselines and Onceport's subjects (the direct POST is the driver's floor, not a contender). */
  static final Set<String> SUBJECTS = Set.of("passthrough", "bare", "sse", "json", "read");

  private final Bench bench;
  private final BenchBatches batches;

  BenchCurve(Bench bench, BenchBatches batches) {
    this.bench = bench;
    this.batches = batches;
  }

  ObjectNode curve(List<Subject> subjects) throws InterruptedException {
    List<Subject> on = subjects.stream().filter(s -> s.measured() && SUBJECTS.contains(s.key)).toList();
    ObjectNode c = McpDriver.JSON.createObjectNode();
    ArrayNode callers = c.putArray("callers");
    bench.settings.curve().forEach(callers::add);
    c.put("window_ms", bench.settings.window().toMillis());
    c.put("load_before", Bench.loadAverage());
    ObjectNode bySubject = c.putObject("subjects");
    for (Subject s : on) {
      bySubject.putArray(s.key);
    }
    int turn = 0;
    for (int n : bench.settings.curve()) {
      bench.say("bench: curve, " + n + " caller(s), load " + Bench.loadAverage());
      for (Subject s : Bench.rotate(on, turn++)) {
        ((ArrayNode) bySubject.get(s.key)).add(point(s, n));
      }
    }
    c.put("load_after", Bench.loadAverage());
    return c;
  }

  private ObjectNode point(Subject s, int callers) throws InterruptedException {
    Subject.Tally tally = new Subject.Tally();
    BenchBatches.Measured m = batches.measure(s, callers, bench.settings.window(), tally);
    ObjectNode p = McpDriver.JSON.createObjectNode();
    p.put("callers", callers);
    p.put("calls", m.calls());
    put(p, "throughput_per_s", m.rate());
    put(p, "p50_ms", m.p50Nanos() < 0 ? Double.NaN : m.p50Nanos() / 1e6);
    put(p, "p99_ms", m.p99Nanos() < 0 ? Double.NaN : m.p99Nanos() / 1e6);
    tally.into(p);
    long cpu = 0;
    for (String process : s.processes) {
      cpu += m.cpuAfter().getOrDefault(process, 0L) - m.cpuBefore().getOrDefault(process, 0L);
    }
    put(p, "cpu_ms_per_call", m.calls() == 0 ? Double.NaN : cpu / 1e6 / m.calls());
    put(p, "host_idle", m.hostIdle());
    return p;
  }
}
