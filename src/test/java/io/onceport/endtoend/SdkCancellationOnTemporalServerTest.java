package io.onceport.endtoend;

import io.onceport.testing.GatewayHarness;
import io.onceport.testing.TemporalCli;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@link SdkCancellationScenarios} on a real Temporal server (the Temporal CLI's dev server). */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SdkCancellationOnTemporalServerTest extends SdkCancellationScenarios {
  @Override
  GatewayHarness startGateway() throws Exception {
    return GatewayHarness.onTemporalCli(TemporalCli.binaryOrSkip(), Duration.ofSeconds(20), List.of());
  }
}
