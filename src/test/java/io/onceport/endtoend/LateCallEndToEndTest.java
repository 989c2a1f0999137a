package io.onceport.endtoend;

import io.onceport.testing.AttachFaults;
import io.onceport.testing.GatewayHarness;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@link LateCallScenarios} on the embedded engine. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LateCallEndToEndTest extends LateCallScenarios {
  @Override
  GatewayHarness startGateway(AttachFaults faults) throws Exception {
    return new GatewayHarness(true, Duration.ofSeconds(20), List.of(faults), Map.of());
  }
}
