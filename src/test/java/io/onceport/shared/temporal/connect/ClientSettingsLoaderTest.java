package io.onceport.shared.temporal.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.Conditions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Temporal's standard client configuration with Onceport's settings on top: per setting, the
 * override (flag, config file, ONCEPORT_*), then TEMPORAL_*, then the temporal.toml profile, then
 * the default — each value named by where it came from, and no secret in any description.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClientSettingsLoaderTest {
  private static final String KEY = "tk_secret_0123456789abcdef";
  @TempDir Path dir;
  private Path toml;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void profileFile() throws Exception {
    toml = dir.resolve("temporal.toml");
    Files.writeString(toml, """
        [profile.default]
        address = "profile.example:7233"
        namespace = "from-profile"

        [profile.cloud]
        address = "ns.acct.tmprl.cloud:7233"
        namespace = "ns.acct"
        api_key = "%s"

        [profile.mtls]
        address = "temporal.internal:7233"
        [profile.mtls.tls]
        client_cert_path = "/etc/onceport/client.pem"
        client_key_path = "/etc/onceport/client.key"
        server_name = "temporal.internal"
        [profile.mtls.grpc_meta]
        x-tenant = "acme"
        """.formatted(KEY));
    env.put("TEMPORAL_CONFIG_FILE", toml.toString());
  }

  private static ClientSettingsLoader.Overrides overrides(Sourced<String> address, Sourced<String> profile) {
    return new ClientSettingsLoader.Overrides(address, null, profile, null, null, null, null, null);
  }

  @Test
  void withNothingSetItIsLoopbackDefaultAndPlaintext() throws Exception {
    Files.writeString(toml, "");
    ClientSettings s = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals(new Sourced<>("127.0.0.1:7233", "the default"), s.address());
    assertEquals(new Sourced<>("default", "the default"), s.namespace());
    assertFalse(s.tls());
    assertEquals(ClientSettings.Auth.NONE, s.auth());
    assertEquals("127.0.0.1:7233 (namespace default, none)", s.describe());
  }

  @Test
  void theProfileThenTemporalVariablesThenOverridesWinInThatOrder() {
    ClientSettings profile = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals(new Sourced<>("profile.example:7233", "address of profile 'default' in " + toml), profile.address());
    assertEquals("from-profile", profile.namespace().value());

    env.put("TEMPORAL_ADDRESS", "env.example:7233");
    ClientSettings fromEnv = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals(new Sourced<>("env.example:7233", "TEMPORAL_ADDRESS"), fromEnv.address());
    assertEquals("from-profile", fromEnv.namespace().value(), "what the environment does not set still comes from the profile");

    ClientSettings flag = ClientSettingsLoader.load(overrides(new Sourced<>("flag.example:7233", "--temporal"), null), env);
    assertEquals(new Sourced<>("flag.example:7233", "--temporal"), flag.address());
  }

  @Test
  void aProfileIsChosenByTemporalProfileOrTheProfileFlagAndAnUnknownOneIsNamed() {
    env.put("TEMPORAL_PROFILE", "mtls");
    ClientSettings mtls = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals("temporal.internal:7233", mtls.address().value());
    assertEquals(ClientSettings.Auth.MTLS, mtls.auth());
    assertEquals(Path.of("/etc/onceport/client.pem"), mtls.clientCert().path());
    assertEquals("tls.client_cert_path of profile 'mtls' in " + toml, mtls.clientCert().source());
    assertEquals(new Sourced<>("temporal.internal", "tls.server_name of profile 'mtls' in " + toml), mtls.serverName());
    assertEquals(Map.of("x-tenant", "acme"), mtls.grpcMetadata());

    ClientSettings cloud = ClientSettingsLoader.load(overrides(null, new Sourced<>("cloud", "--profile")), env);
    assertEquals("ns.acct", cloud.namespace().value());
    assertEquals(ClientSettings.Auth.API_KEY, cloud.auth());
    assertTrue(cloud.tls(), "an API key is only sent over TLS");

    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> ClientSettingsLoader.load(overrides(null, new Sourced<>("staging", "--profile")), env));
    assertEquals("no profile 'staging' (--profile) in " + toml + ": name a profile it has, or set TEMPORAL_CONFIG_FILE",
        unknown.getMessage());
  }

  @Test
  void aConfigFileThatDoesNotExistIsAnErrorNotSilence() {
    env.put("TEMPORAL_CONFIG_FILE", dir.resolve("nope.toml").toString());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env));
    assertEquals("TEMPORAL_CONFIG_FILE names " + dir.resolve("nope.toml") + ", which is not a file", e.getMessage());
  }

  @Test
  void theTlsSwitchAndTheSettingThatTurnedItOn() {
    env.put("TEMPORAL_ADDRESS", "tls.example:7233");
    env.put("TEMPORAL_TLS", "true");
    assertEquals("TEMPORAL_TLS", ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env).tlsReason());
    env.put("TEMPORAL_TLS", "1");
    assertEquals(ClientSettings.Auth.TLS, ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env).auth());
    env.remove("TEMPORAL_TLS");
    env.put("TEMPORAL_TLS_SERVER_CA_CERT_PATH", "/etc/ca.pem");
    ClientSettings ca = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals("TEMPORAL_TLS_SERVER_CA_CERT_PATH", ca.tlsReason());
    assertEquals(Path.of("/etc/ca.pem"), ca.serverCa().path());

    env.put("TEMPORAL_TLS", "false");
    IllegalArgumentException off = assertThrows(IllegalArgumentException.class,
        () -> ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env));
    assertEquals("TLS settings given but TLS is off: /etc/ca.pem (TEMPORAL_TLS_SERVER_CA_CERT_PATH); turn TLS on "
        + "(TEMPORAL_TLS=true) or drop them", off.getMessage());
    env.put("TEMPORAL_TLS", "maybe");
    assertEquals("TEMPORAL_TLS must be true or false, not 'maybe'", assertThrows(IllegalArgumentException.class,
        () -> ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env)).getMessage());
  }

  @Test
  void aClientCertificateWithoutItsKeyNamesTheMissingSetting() {
    env.put("TEMPORAL_TLS_CLIENT_CERT_PATH", "/etc/client.pem");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env));
    assertEquals("/etc/client.pem (TEMPORAL_TLS_CLIENT_CERT_PATH) is set but the client key is not: set "
        + "TEMPORAL_TLS_CLIENT_KEY_PATH (or --tls-key) too, or neither", e.getMessage());
  }

  @Test
  void inlineDataAndGrpcMetadataComeFromTheEnvironment() {
    env.put("TEMPORAL_TLS_CLIENT_CERT_DATA", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    env.put("TEMPORAL_TLS_CLIENT_KEY_DATA", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    env.put("TEMPORAL_GRPC_META_X_ROUTE", "blue");
    ClientSettings s = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals(ClientSettings.Auth.MTLS, s.auth());
    assertNull(s.clientKey().path());
    assertEquals("TEMPORAL_TLS_CLIENT_KEY_DATA", s.clientKey().toString(), "inline key data is named, never printed");
    assertEquals("blue", s.grpcMetadata().get("x-route"));
  }

  @Test
  void noDescriptionCarriesTheApiKey() {
    env.put("TEMPORAL_PROFILE", "cloud");
    ClientSettings s = ClientSettingsLoader.load(ClientSettingsLoader.Overrides.NONE, env);
    assertEquals(KEY, s.apiKey().get());
    for (String shown : new String[] {s.toString(), s.describe(), s.apiKey().toString(), s.address().toString()}) {
      assertFalse(shown.contains(KEY), shown);
    }
    assertEquals("ns.acct.tmprl.cloud:7233 (namespace ns.acct, API key)", s.describe());
  }

  @Test
  void anApiKeyFileBeatsTheEnvironmentAndARotatedKeyIsReadWithoutARestart() throws Exception {
    env.put("TEMPORAL_API_KEY", "from-env");
    Path file = Files.writeString(dir.resolve("api-key"), "first-key\n");
    ClientSettings s = ClientSettingsLoader.load(new ClientSettingsLoader.Overrides(null, null, null, null, null, null, null,
        new Sourced<>(file.toString(), "--api-key-file")), env);
    assertEquals("first-key", s.apiKey().get());
    assertEquals("API key from " + file + " (--api-key-file)", s.apiKey().toString());
    Path next = Files.writeString(dir.resolve("api-key.new"), "second-key\n");
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Conditions.await("the rotated key is read", Duration.ofSeconds(10), () -> s.apiKey().get().equals("second-key"));
  }
}
