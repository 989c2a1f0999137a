package io.onceport.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The compiler threads' CPU time, read from /proc: this JVM's is positive and never falls; a process without a JIT has none. */
@Timeout(60)
class JitCpuTest {
  @Test
  void thisJvmsCompilerThreadsHaveSpentCpuAndTheFigureNeverFalls() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
    try (JitCpu jit = new JitCpu()) {
      long self = ProcessHandle.current().pid();
      long first = jit.millis(self);
      assertTrue(first > 0, "a JVM that started JUnit has compiled for more than a clock tick: " + first);
      long sum = 0;
      for (int i = 0; i < 2_000_000; i++) {
        sum += Long.toString(i).hashCode(); // work for the compilers
      }
      Thread.sleep(2 * JitCpu.POLL_MS);
      assertTrue(jit.millis(self) >= first, "never falls (sum " + sum + ")");
    }
  }

  @Test
  void itCountsWhatItsOwnReadingOfProcCostsSoTheBenchCanLeaveItOutOfTheGatewaysCpu() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
    try (JitCpu jit = new JitCpu()) {
      long self = ProcessHandle.current().pid();
      long before = jit.ownCpuNanos();
      for (int i = 0; i < 200; i++) {
        jit.millis(self); // each reads this JVM's /proc/PID/task
      }
      long spent = jit.ownCpuNanos() - before;
      assertTrue(spent > 0, "200 reads of /proc cost this JVM some CPU time: " + spent);
      long process = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
      assertTrue(spent < process, "a part of the JVM's CPU, not more: " + spent + " of " + process);
    }
  }

  @Test
  void aProcessWithoutCompilerThreadsHasSpentNothing() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
    Process sleep = new ProcessBuilder("sleep", "30").start();
    try (JitCpu jit = new JitCpu()) {
      assertEquals(0, jit.millis(sleep.pid()));
    } finally {
      sleep.destroy();
      sleep.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
