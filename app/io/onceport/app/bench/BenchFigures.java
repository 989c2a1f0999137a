package io.onceport.app.bench;

import static io.onceport.app.bench.Bench.put;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One subject's row of the result: its figures, and each as a ratio to its baseline's measured in the same run. */
final class BenchFigures {
  /** The gRPC method whose count per call is the workflow tasks a call costs (each task completed is one). */
  static final String WORKFLOW_TASK = "RespondWorkflowTaskCompleted";

  private BenchFigures() {}

  static ObjectNode of(Subject s, List<Subject> all, int concurrency) {
    ObjectNode f = McpDriver.JSON.createObjectNode();
    f.put("subject", s.key);
    f.put("label", s.label);
    if (!s.measured()) {
      f.put("skipped", s.skipped);
      return f;
    }
    put(f, "p50_ms", s.percentileMillis(0.5));
    put(f, "p90_ms", s.percentileMillis(0.9));
    f.put("c1_calls", s.latencies.size());
    f.put("calls_served", s.served.get());
    put(f, "throughput_per_s", s.throughput());
    f.put("concurrency", concurrency);
    put(f, "cpu_ms_per_call", s.cpuPerCallMillis());
    ObjectNode byProcess = f.putObject("cpu_ms_per_call_by_process");
    for (String p : s.batchCpuByProcess.keySet()) {
      if (s.processes.contains(p)) {
        put(byProcess, p, s.cpuPerCallMillis(p));
      }
    }
    withoutJit(f, s);
    if (s.batchCpuByProcess.containsKey(BenchRig.ENGINE) && s.processes.contains(BenchRig.ENGINE)) {
      put(f, "engine_cpu_ms_per_call", s.cpuPerCallMillis(BenchRig.ENGINE));
    }
    put(f, "host_idle", s.hostIdle());
    if (s.batchCalls > 0) {
      put(f, "jit_ms_per_call", s.batchJitMillis / (double) s.batchCalls);
      if (s.batchJitCpuMillis >= 0) {
        put(f, "jit_cpu_ms_per_call", s.batchJitCpuMillis / (double) s.batchCalls);
      }
      f.put("jit_jvm", switch (s.jvm) {
        case BenchRig.BARE -> "the bare baseline's JVM";
        case BenchRig.DRIVER -> "the load driver's JVM";
        default -> "the gateway's JVM";
      });
    }
    rpcs(f, s);
    s.tally.into(f);
    if (s.baseline != null) {
      f.put("baseline", s.baseline);
      all.stream().filter(b -> b.key.equals(s.baseline) && b.measured()).findFirst().ifPresent(b -> ratios(f, s, b));
    }
    return f;
  }

  /** Each used JVM's compiler threads' CPU per call, and the CPU per call without them. */
  private static void withoutJit(ObjectNode f, Subject s) {
    ObjectNode jitByProcess = McpDriver.JSON.createObjectNode();
    for (String p : s.processes) {
      if (s.batchCpuByProcess.containsKey(BenchRig.JIT + p)) {
        put(jitByProcess, p, s.cpuPerCallMillis(BenchRig.JIT + p));
      }
    }
    if (!jitByProcess.isEmpty()) {
      f.set("jit_cpu_ms_per_call_by_process", jitByProcess);
      put(f, "cpu_ms_per_call_without_jit", s.cpuPerCallWithoutJitMillis());
    }
  }

  /** The gRPC calls to the engine per call by method, the bytes sent and the workflow tasks. */
  private static void rpcs(ObjectNode f, Subject s) {
    if (s.batchCalls > 0 && !s.batchRpcs.isEmpty()) {
      ObjectNode r = f.putObject("engine_rpcs_per_call");
      Map<String, Double> perCall = RpcCounter.perCall(Map.of(), s.batchRpcs, s.batchCalls);
      perCall.forEach(r::put);
      put(f, "sent_bytes_per_call", perCall.getOrDefault(RpcCounter.SENT_BYTES, 0.0));
      put(f, "workflow_tasks_per_call", perCall.getOrDefault(WORKFLOW_TASK, 0.0));
    }
  }

  /** Each figure over the baseline's: for latency, CPU, bytes and JIT lower is better, for throughput higher. */
  private static void ratios(ObjectNode f, Subject s, Subject b) {
    put(f, "p50_ratio", s.percentileMillis(0.5) / b.percentileMillis(0.5));
    put(f, "throughput_ratio", s.throughput() / b.throughput());
    put(f, "cpu_ratio", s.cpuPerCallMillis() / b.cpuPerCallMillis());
    if (s.batchCalls > 0 && b.batchCalls > 0) {
      double sJit = s.batchJitMillis / (double) s.batchCalls;
      double bJit = b.batchJitMillis / (double) b.batchCalls;
      // the compiler threads' CPU of every JVM each side uses (not the JIT's elapsed time, which is no CPU)
      double sCpu = s.cpuPerCallWithoutJitMillis();
      double bCpu = b.cpuPerCallWithoutJitMillis();
      if (!Double.isNaN(sCpu) && !Double.isNaN(bCpu)) {
        put(f, "cpu_ratio_without_jit", sCpu / bCpu);
      }
      if (bJit > 0) {
        put(f, "jit_ratio", sJit / bJit);
      }
      if (s.batchJitCpuMillis >= 0 && b.batchJitCpuMillis > 0) {
        put(f, "jit_cpu_ratio", (s.batchJitCpuMillis / (double) s.batchCalls) / (b.batchJitCpuMillis / (double) b.batchCalls));
      }
      Optional<Double> sBytes = sentBytes(s);
      Optional<Double> bBytes = sentBytes(b);
      if (sBytes.isPresent() && bBytes.isPresent() && bBytes.get() > 0) {
        put(f, "bytes_ratio", sBytes.get() / bBytes.get());
      }
    }
  }

  private static Optional<Double> sentBytes(Subject s) {
    Long bytes = s.batchRpcs.get(RpcCounter.SENT_BYTES);
    return bytes == null || s.batchCalls == 0 ? Optional.empty() : Optional.of(bytes / (double) s.batchCalls);
  }
}
