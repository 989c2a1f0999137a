package io.onceport.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.frontend.mcp.AgentLimits;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bench's gateway admits as many long waits of its one agent as the bench makes at once: with
 * the default per-agent limit (64) the standard curve's 256 callers got 6,559 HTTP 429s in one run
 * (`bench --engine embedded … --curve 1,16,64,256`, main 789a437), which the curve counted as the
 * call path's errors.
 */
@Timeout(10)
class BenchRigLimitsTest {
  @Test
  void theStandardBudgetAdmitsItsStormAndItsLargestCurvePoint() {
    AgentLimits limits = BenchRig.agentLimits(BenchSettings.standard().build());
    assertEquals(1000, limits.longWaits(), "the storm's 1,000 identical calls wait at once");
    assertEquals(AgentLimits.DEFAULT_OPEN_SESSIONS, limits.openSessions());
  }

  @Test
  void aCurveAboveTheStormSetsTheLimitAndASmallBenchKeepsTheDefault() {
    BenchSettings.Builder big = BenchSettings.standard();
    big.curve = List.of(1, 16, 1024);
    assertEquals(1024, BenchRig.agentLimits(big.build()).longWaits());
    assertEquals(AgentLimits.DEFAULT_LONG_WAITS, BenchRig.agentLimits(BenchSettings.tiny().build()).longWaits());
  }
}
