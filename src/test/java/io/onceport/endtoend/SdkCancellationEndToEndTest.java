package io.onceport.endtoend;

import io.onceport.testing.GatewayHarness;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/** {@link SdkCancellationScenarios} on the embedded engine. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SdkCancellationEndToEndTest extends SdkCancellationScenarios {
  @Override
  GatewayHarness startGateway() throws Exception {
    return new GatewayHarness(true);
  }
}
