package io.onceport.endtoend;

import io.onceport.testing.AttachFaults;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.TemporalCli;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@link LateCallScenarios} on a real Temporal server (the Temporal CLI's dev server). */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LateCallOnTemporalServerTest extends LateCallScenarios {
  @Override
  GatewayHarness startGateway(AttachFaults faults) throws Exception {
    return GatewayHarness.onTemporalCli(TemporalCli.binaryOrSkip(), Duration.ofSeconds(20), List.of(faults));
  }
}
