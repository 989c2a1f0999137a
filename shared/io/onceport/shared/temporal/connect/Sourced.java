package io.onceport.shared.temporal.connect;

import java.util.Objects;

/**
 * A setting's value and the name of the setting it came from ({@code --tls-ca},
 * {@code TEMPORAL_TLS_SERVER_CA_CERT_PATH}, {@code tls.server_ca_cert_path of profile 'prod' in
 * ~/.config/temporalio/temporal.toml}): an error about a connection names the setting to fix.
 */
public record Sourced<T>(T value, String source) {
  public Sourced {
    Objects.requireNonNull(value, "value == null");
    Objects.requireNonNull(source, "source == null");
  }

  @Override
  public String toString() {
    return value + " (" + source + ")";
  }
}
