package io.onceport.shared.temporal.connect;

import io.grpc.Metadata;
import io.temporal.envconfig.ClientConfigProfile;
import io.temporal.envconfig.ClientConfigTLS;
import io.temporal.envconfig.LoadClientConfigProfileOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Temporal's standard client configuration, with Onceport's own settings on top. Precedence, per
 * setting: a flag (or the config file), then {@code ONCEPORT_*} — both arrive as {@link Overrides}
 * — then Temporal's {@code TEMPORAL_*} variables, then the {@code temporal.toml} profile
 * ({@code TEMPORAL_PROFILE}, {@code TEMPORAL_CONFIG_FILE}), then the default. The environment and
 * the profile are read by Temporal's {@code temporal-envconfig} (the module every Temporal SDK's
 * configuration follows); this class only adds the layer above it and remembers where each value
 * came from, so that errors can name the setting to fix.
 */
public final class ClientSettingsLoader {
  public static final String DEFAULT_ADDRESS = "127.0.0.1:7233";
  public static final String DEFAULT_NAMESPACE = "default";

  private ClientSettingsLoader() {}

  /** Values set above the environment — flags, the config file, {@code ONCEPORT_*} — each named by its setting. */
  public record Overrides(Sourced<String> address, Sourced<String> namespace, Sourced<String> profile,
      Sourced<String> tlsCert, Sourced<String> tlsKey, Sourced<String> tlsCa, Sourced<String> tlsServerName,
      Sourced<String> apiKeyFile) {
    public static final Overrides NONE = new Overrides(null, null, null, null, null, null, null, null);

    /** The first TLS setting given here, or null. */
    Sourced<String> firstTls() {
      return Stream.of(tlsCert, tlsKey, tlsCa, tlsServerName).filter(s -> s != null).findFirst().orElse(null);
    }
  }

  /**
   * The settings for {@code overrides} in {@code env}.
   *
   * @throws IllegalArgumentException with a one-line message naming the setting at fault (a profile
   *     that is not in the file, a config file that does not exist, a certificate without its key)
   */
  public static ClientSettings load(Overrides overrides, Map<String, String> env) {
    Sourced<String> profile = overrides.profile() != null ? overrides.profile()
        : nonBlank(env.get("TEMPORAL_PROFILE")) != null ? new Sourced<>(env.get("TEMPORAL_PROFILE").strip(), "TEMPORAL_PROFILE") : null;
    String file = configFile(env);
    Labels labels = new Labels(env, "profile '" + (profile == null ? "default" : profile.value()) + "' in " + file);
    ClientConfigProfile merged = loadProfile(profile, file, env);

    Sourced<String> address = first(overrides.address(), labels.of(merged.getAddress(), "TEMPORAL_ADDRESS", "address"),
        new Sourced<>(DEFAULT_ADDRESS, "the default"));
    Sourced<String> namespace = first(overrides.namespace(), labels.of(merged.getNamespace(), "TEMPORAL_NAMESPACE", "namespace"),
        new Sourced<>(DEFAULT_NAMESPACE, "the default"));
    ClientSettings.Builder b = ClientSettings.newBuilder(address, namespace);
    ApiKey apiKey = apiKey(overrides, merged, labels);
    b.apiKey(apiKey);
    ClientConfigTLS tls = merged.getTls() != null ? merged.getTls() : ClientConfigTLS.getDefaultInstance();
    PemSource cert = pem(overrides.tlsCert(), tls.getClientCertPath(), tls.getClientCertData(), labels, "CLIENT_CERT", "client_cert");
    PemSource key = pem(overrides.tlsKey(), tls.getClientKeyPath(), tls.getClientKeyData(), labels, "CLIENT_KEY", "client_key");
    PemSource ca = pem(overrides.tlsCa(), tls.getServerCACertPath(), tls.getServerCACertData(), labels, "SERVER_CA_CERT", "server_ca_cert");
    b.clientCertificate(cert, key).serverCa(ca)
        .serverName(first(overrides.tlsServerName(), labels.of(tls.getServerName(), "TEMPORAL_TLS_SERVER_NAME", "tls.server_name"), null))
        .disableHostVerification(Boolean.TRUE.equals(tls.isDisableHostVerification()));
    String tlsReason = tlsReason(overrides, env, merged.getTls(), labels, apiKey, cert, key, ca);
    if (tlsReason != null) {
      b.tls(tlsReason);
    }
    b.grpcMetadata(metadata(merged.getMetadata()));
    return b.build();
  }

  /** The {@code temporal.toml} in use: {@code TEMPORAL_CONFIG_FILE}, else the user's ({@code ~/.config/temporalio/temporal.toml}). */
  static String configFile(Map<String, String> env) {
    String named = nonBlank(env.get("TEMPORAL_CONFIG_FILE"));
    if (named != null) {
      if (!Files.isRegularFile(Path.of(named))) {
        throw new IllegalArgumentException("TEMPORAL_CONFIG_FILE names " + named + ", which is not a file");
      }
      return named;
    }
    String home = System.getProperty("user.home", "");
    boolean mac = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac");
    return mac ? Path.of(home, "Library", "Application Support", "temporalio", "temporal.toml").toString()
        : Path.of(home, ".config", "temporalio", "temporal.toml").toString();
  }

  private static ClientConfigProfile loadProfile(Sourced<String> profile, String file, Map<String, String> env) {
    LoadClientConfigProfileOptions.Builder options = LoadClientConfigProfileOptions.newBuilder()
        .setConfigFileProfile(profile == null ? null : profile.value()).setEnvOverrides(env);
    try {
      return ClientConfigProfile.load(options.build());
    } catch (IOException e) {
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
      throw new IllegalArgumentException("cannot read the Temporal config file " + file + ": " + reason, e);
    } catch (IllegalArgumentException | NullPointerException e) {
      // envconfig 1.38 fails with a NullPointerException on a file without profiles (an empty temporal.toml).
      if (e instanceof NullPointerException && profile == null) {
        return envOnly(env);
      }
      throw new IllegalArgumentException("no profile '" + (profile == null ? "default" : profile.value()) + "' ("
          + (profile == null ? "the default" : profile.source()) + ") in " + file
          + (Files.exists(Path.of(file)) ? "" : ", which does not exist") + ": name a profile it has, or set TEMPORAL_CONFIG_FILE", e);
    }
  }

  private static ClientConfigProfile envOnly(Map<String, String> env) {
    try {
      return ClientConfigProfile.load(LoadClientConfigProfileOptions.newBuilder().setDisableFile(true).setEnvOverrides(env).build());
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static ApiKey apiKey(Overrides overrides, ClientConfigProfile merged, Labels labels) {
    if (overrides.apiKeyFile() != null) {
      return ApiKey.fromFile(Path.of(overrides.apiKeyFile().value()), overrides.apiKeyFile().source());
    }
    Sourced<String> value = labels.of(merged.getApiKey(), "TEMPORAL_API_KEY", "api_key");
    return value == null ? null : ApiKey.of(value.value(), value.source());
  }

  /** A PEM from the override (a file), else the profile's {@code _PATH}, else its {@code _DATA}. */
  private static PemSource pem(Sourced<String> override, String path, byte[] data, Labels labels, String env, String toml) {
    if (override != null) {
      return PemSource.file(Path.of(override.value()), override.source());
    }
    Sourced<String> p = labels.of(path, "TEMPORAL_TLS_" + env + "_PATH", "tls." + toml + "_path");
    if (p != null) {
      return PemSource.file(Path.of(p.value()), p.source());
    }
    if (data != null && data.length > 0) {
      return PemSource.data(data, labels.of(new String(data, StandardCharsets.US_ASCII), "TEMPORAL_TLS_" + env + "_DATA",
          "tls." + toml + "_data").source());
    }
    return null;
  }

  /**
   * Why TLS is on, or null when it is off. A TLS flag turns it on; else {@code TEMPORAL_TLS} (true,
   * 1, false, 0) or the profile's {@code tls.disabled} decide; else any TLS setting or an API key
   * turns it on, as in Temporal's SDKs (an API key is a bearer secret: never sent in plaintext
   * unless TLS is turned off explicitly).
   */
  private static String tlsReason(Overrides overrides, Map<String, String> env, ClientConfigTLS profileTls, Labels labels,
      ApiKey apiKey, PemSource... pems) {
    if (overrides.firstTls() != null) {
      return overrides.firstTls().source();
    }
    String flag = nonBlank(env.get("TEMPORAL_TLS"));
    if (flag != null) {
      return switch (flag.toLowerCase(Locale.ROOT)) {
        case "true", "1", "yes", "on" -> "TEMPORAL_TLS";
        case "false", "0", "no", "off" -> null;
        default -> throw new IllegalArgumentException("TEMPORAL_TLS must be true or false, not '" + flag + "'");
      };
    }
    if (profileTls != null && profileTls.isDisabled() != null) {
      return profileTls.isDisabled() ? null : "tls.disabled = false of " + labels.file();
    }
    for (PemSource pem : pems) {
      if (pem != null) {
        return pem.source();
      }
    }
    if (profileTls != null && profileTls.getServerName() != null) {
      return labels.of(profileTls.getServerName(), "TEMPORAL_TLS_SERVER_NAME", "tls.server_name").source();
    }
    if (profileTls != null) {
      return "the tls section of " + labels.file();
    }
    return apiKey != null ? apiKey.source() + " (an API key is only sent over TLS)" : null;
  }

  private static Map<String, String> metadata(Metadata metadata) {
    Map<String, String> out = new LinkedHashMap<>();
    if (metadata == null) {
      return out;
    }
    for (String key : metadata.keys()) {
      if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        throw new IllegalArgumentException("gRPC metadata " + key + " (TEMPORAL_GRPC_META_* or grpc_meta): binary headers are not supported");
      }
      Iterable<String> values = metadata.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
      if (values != null) {
        values.forEach(v -> out.put(key, v));
      }
    }
    return out;
  }

  @SafeVarargs
  private static <T> Sourced<T> first(Sourced<T>... candidates) {
    for (Sourced<T> c : candidates) {
      if (c != null) {
        return c;
      }
    }
    return null;
  }

  private static String nonBlank(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  /** Names a merged value by where it came from: the environment variable when it is set, else the profile's key. */
  private record Labels(Map<String, String> env, String file) {
    Sourced<String> of(String value, String envName, String tomlKey) {
      if (value == null || value.isBlank()) {
        return null;
      }
      return new Sourced<>(value.strip(), nonBlank(env.get(envName)) != null ? envName : tomlKey + " of " + file);
    }
  }
}
