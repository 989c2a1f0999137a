package io.onceport.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onceport.app.engine.TemporalCliServer;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The Temporal CLI binary for tests against a real Temporal server: skipped where it is not
 * installed, but a failure under CI ({@code CI} set), where {@code .ci/run} installs it.
 */
public final class TemporalCli {
  private TemporalCli() {}

  public static Path binaryOrSkip() {
    Optional<Path> found = TemporalCliServer.findBinary();
    if (found.isEmpty() && System.getenv("CI") != null) {
      fail("CI is set but the Temporal CLI is not installed (bin/install-temporal-cli; PATH or ~/.cache/onceport/bin)");
    }
    assumeTrue(found.isPresent(), "the Temporal CLI is not installed (bin/install-temporal-cli)");
    return found.get();
  }
}
