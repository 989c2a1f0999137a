package io.onceport.shared.temporal.connect;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where and how to reach Temporal — address, namespace, TLS material, API key, gRPC metadata —
 * each value with the name of the setting it came from, so that a failed connection can say which
 * setting to fix. {@link ClientSettingsLoader} builds it from flags, {@code ONCEPORT_*},
 * Temporal's standard {@code TEMPORAL_*} variables and {@code temporal.toml} profiles.
 * {@link #toString()} and {@link #describe()} name the kind of authentication, never a secret.
 */
public final class ClientSettings {
  /** The kind of authentication, as the start-up line names it. */
  public enum Auth {
    NONE("none"), TLS("TLS"), MTLS("mTLS"), API_KEY("API key"), MTLS_AND_API_KEY("mTLS + API key");

    private final String label;

    Auth(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final Sourced<String> address;
  private final Sourced<String> namespace;
  private final String tlsReason;
  private final PemSource clientCert;
  private final PemSource clientKey;
  private final PemSource serverCa;
  private final Sourced<String> serverName;
  private final boolean disableHostVerification;
  private final ApiKey apiKey;
  private final Map<String, String> grpcMetadata;

  private ClientSettings(Builder b) {
    this.address = Objects.requireNonNull(b.address, "address == null");
    this.namespace = Objects.requireNonNull(b.namespace, "namespace == null");
    this.tlsReason = b.tlsReason;
    this.clientCert = b.clientCert;
    this.clientKey = b.clientKey;
    this.serverCa = b.serverCa;
    this.serverName = b.serverName;
    this.disableHostVerification = b.disableHostVerification;
    this.apiKey = b.apiKey;
    this.grpcMetadata = Map.copyOf(b.grpcMetadata);
    if ((clientCert == null) != (clientKey == null)) {
      PemSource given = clientCert != null ? clientCert : clientKey;
      throw new IllegalArgumentException(given + " is set but the client " + (clientCert == null ? "certificate" : "key")
          + " is not: set " + (clientCert == null ? "TEMPORAL_TLS_CLIENT_CERT_PATH (or --tls-cert)" : "TEMPORAL_TLS_CLIENT_KEY_PATH (or --tls-key)")
          + " too, or neither");
    }
    if (tlsReason == null && (clientCert != null || serverCa != null || serverName != null)) {
      throw new IllegalArgumentException("TLS settings given but TLS is off: " + (clientCert != null ? clientCert : serverCa != null
          ? serverCa : serverName) + "; turn TLS on (TEMPORAL_TLS=true) or drop them");
    }
  }

  public static Builder newBuilder(String address, String namespace) {
    return new Builder(new Sourced<>(address, "--temporal"), new Sourced<>(namespace, "--namespace"));
  }

  public static Builder newBuilder(Sourced<String> address, Sourced<String> namespace) {
    return new Builder(address, namespace);
  }

  /** Plaintext to {@code address}: the local engines, tests, benchmarks. */
  public static ClientSettings plaintext(String address, String namespace) {
    return newBuilder(address, namespace).build();
  }

  public Sourced<String> address() {
    return address;
  }

  public Sourced<String> namespace() {
    return namespace;
  }

  /** Whether the connection uses TLS. */
  public boolean tls() {
    return tlsReason != null;
  }

  /** The setting that turned TLS on ({@code TEMPORAL_TLS}, {@code --tls-ca}, an API key, …), or null for plaintext. */
  public String tlsReason() {
    return tlsReason;
  }

  public PemSource clientCert() {
    return clientCert;
  }

  public PemSource clientKey() {
    return clientKey;
  }

  /** The CA that signs the server's certificate, or null for the system's trusted CAs. */
  public PemSource serverCa() {
    return serverCa;
  }

  public Sourced<String> serverName() {
    return serverName;
  }

  public boolean disableHostVerification() {
    return disableHostVerification;
  }

  public ApiKey apiKey() {
    return apiKey;
  }

  /** Extra gRPC headers ({@code TEMPORAL_GRPC_META_*}, a profile's {@code grpc_meta}): values may be secrets. */
  public Map<String, String> grpcMetadata() {
    return grpcMetadata;
  }

  public Auth auth() {
    boolean mtls = clientCert != null;
    if (apiKey != null) {
      return mtls ? Auth.MTLS_AND_API_KEY : Auth.API_KEY;
    }
    return mtls ? Auth.MTLS : tls() ? Auth.TLS : Auth.NONE;
  }

  /** "ADDRESS (namespace NS, AUTH)": the part of a start-up line that names the connection; no secret. */
  public String describe() {
    return address.value() + " (namespace " + namespace.value() + ", " + auth().label() + ")";
  }

  /** The same settings for another namespace (a command that names one). */
  public ClientSettings withNamespace(Sourced<String> other) {
    return toBuilder(other).build();
  }

  private Builder toBuilder(Sourced<String> ns) {
    Builder b = new Builder(address, ns);
    b.tlsReason = tlsReason;
    b.clientCert = clientCert;
    b.clientKey = clientKey;
    b.serverCa = serverCa;
    b.serverName = serverName;
    b.disableHostVerification = disableHostVerification;
    b.apiKey = apiKey;
    b.grpcMetadata.putAll(grpcMetadata);
    return b;
  }

  @Override
  public String toString() {
    return describe();
  }

  /** Fail-fast setters; {@link #build()} checks that a client certificate comes with its key. */
  public static final class Builder {
    private final Sourced<String> address;
    private final Sourced<String> namespace;
    private String tlsReason;
    private PemSource clientCert;
    private PemSource clientKey;
    private PemSource serverCa;
    private Sourced<String> serverName;
    private boolean disableHostVerification;
    private ApiKey apiKey;
    private final Map<String, String> grpcMetadata = new LinkedHashMap<>();

    private Builder(Sourced<String> address, Sourced<String> namespace) {
      this.address = Objects.requireNonNull(address, "address == null");
      this.namespace = Objects.requireNonNull(namespace, "namespace == null");
      if (address.value().isBlank()) {
        throw new IllegalArgumentException(address.source() + " is empty: name the Temporal frontend as HOST:PORT");
      }
      if (namespace.value().isBlank()) {
        throw new IllegalArgumentException(namespace.source() + " is empty: name a Temporal namespace");
      }
    }

    /** Turns TLS on; {@code reason} names the setting that asked for it. */
    public Builder tls(String reason) {
      this.tlsReason = Objects.requireNonNull(reason, "reason == null");
      return this;
    }

    public Builder clientCertificate(PemSource cert, PemSource key) {
      this.clientCert = cert;
      this.clientKey = key;
      return this;
    }

    public Builder serverCa(PemSource ca) {
      this.serverCa = ca;
      return this;
    }

    public Builder serverName(Sourced<String> name) {
      this.serverName = name;
      return this;
    }

    public Builder disableHostVerification(boolean disable) {
      this.disableHostVerification = disable;
      return this;
    }

    public Builder apiKey(ApiKey key) {
      this.apiKey = key;
      return this;
    }

    public Builder grpcMetadata(Map<String, String> metadata) {
      metadata.forEach((k, v) -> grpcMetadata.put(Objects.requireNonNull(k, "key == null").toLowerCase(Locale.ROOT),
          Objects.requireNonNull(v, "value of " + k + " == null")));
      return this;
    }

    public ClientSettings build() {
      return new ClientSettings(this);
    }
  }
}
