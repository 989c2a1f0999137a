package io.onceport.app.bench;

import static io.onceport.app.bench.BenchRig.BARE;
import static io.onceport.app.bench.BenchRig.BENCH;
import static io.onceport.app.bench.BenchRig.DRIVER;
import static io.onceport.app.bench.BenchRig.ENGINE;
import static io.onceport.app.bench.BenchRig.JIT;
import static io.onceport.app.bench.BenchRig.NODE;
import static io.onceport.app.bench.BenchRig.TARGET;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/** Each process's CPU time, read apart so a subject's CPU per call counts only the processes it uses. */
final class ProcessCpu {
  private ProcessCpu() {}

  /**
   * CPU time so far of each process of {@code rig}, in nanoseconds, by {@link BenchRig#BENCH} (this
   * JVM: the gateway, less what {@link JitCpu}'s reading of {@code /proc} cost it), {@link
   * BenchRig#ENGINE}, {@link BenchRig#TARGET}, {@link BenchRig#NODE}, {@link BenchRig#BARE} and
   * {@link BenchRig#DRIVER}; a process that runs inside this JVM is not listed apart. Each JVM's
   * compiler threads' share is listed again under {@link BenchRig#JIT} + its name (when {@code
   * /proc} tells; followed from the first read), so a figure without the JIT's warm-up can be read.
   */
  static Map<String, Long> of(BenchRig rig) {
    Map<String, Long> out = new LinkedHashMap<>();
    JitCpu jit = rig.jitCpu;
    out.put(BENCH, ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() - jit.ownCpuNanos());
    jit.into(out, JIT + BENCH, ProcessHandle.current().pid());
    if (rig.engine.apart()) {
      out.put(ENGINE, rig.engine.cpuNanos());
      jit.into(out, JIT + ENGINE, rig.engine.jvmPid());
    }
    if (rig.targetProcess != null) {
      out.put(TARGET, rig.targetProcess.cpuNanos());
      jit.into(out, JIT + TARGET, rig.targetProcess.pid());
    }
    if (rig.passThrough != null) {
      out.put(NODE, rig.passThrough.process().cpuNanos());
    }
    if (rig.bareChild != null) {
      out.put(BARE, rig.bareChild.cpuNanos());
      jit.into(out, JIT + BARE, rig.bareChild.pid());
    }
    if (rig.driver != null) {
      out.put(DRIVER, rig.driver.cpuNanos());
      jit.into(out, JIT + DRIVER, rig.driver.pid());
    }
    return out;
  }
}
