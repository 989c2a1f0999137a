package io.onceport.activity.vault;

import java.util.Objects;

/**
 * A resolved credential. {@link #toString()} never shows the secret.
 *
 * @param headerName for {@link Type#HEADER}: the header to set
 * @param username for {@link Type#BASIC}
 * @param secret the token, password, header value, or PEM/OpenSSH private key
 */
public record Credential(String name, Type type, String headerName, String username, String secret) {
  public enum Type {
    BEARER,
    BASIC,
    HEADER,
    SSH_KEY;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  public Credential {
    Objects.requireNonNull(name, "name == null");
    Objects.requireNonNull(type, "type == null");
    Objects.requireNonNull(secret, "secret == null");
  }

  @Override
  public String toString() {
    return "Credential[name=" + name + ", type=" + type.wireName() + ", secret=***]";
  }
}
