package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.frontend.auth.SessionIds;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.codec.Payloads;
import io.onceport.testing.Contracts;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.Conditions;
import io.onceport.testing.McpClient;
import io.onceport.testing.Operators;
import io.onceport.testing.Records;
import io.onceport.testing.SecretSearch;
import io.onceport.testing.TemporalCli;
import io.onceport.testing.TestPki;
import io.onceport.testing.TlsTerminator;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Onceport against a secured Temporal, as a team that runs one deploys it: the Temporal CLI's dev
 * server behind nginx ({@link TlsTerminator}: one port requiring a client certificate from a
 * private CA, one requiring an API key as a bearer token), certificates made here. Every
 * {@code onceport} process is a child JVM configured by Temporal's standard environment variables
 * alone ({@code TEMPORAL_ADDRESS}, {@code TEMPORAL_TLS_*}, {@code TEMPORAL_API_KEY}; no Temporal
 * flag): a worker (mTLS) and a front end (API key) carry calls to the target once; the operator's
 * commands work through either port; each misconfiguration is one line naming the setting to fix;
 * a rotated client certificate is used by the running worker's next connection; and neither the
 * API key nor a client key is anywhere in the data dir, the logs or Temporal's history.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredTemporalEndToEndTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PASS = "secured temporal passphrase";
  private static final String API_KEY = "tk_onceport_" + UUID.randomUUID().toString().replace("-", "");
  private static final Duration CLI = Duration.ofSeconds(120);
  private static Cluster cluster;
  private static TemporalCliServer server;
  private static TlsTerminator nginx;
  private static Path tls;
  private static Path ca;
  private static Path otherCa;
  private static TestPki pki;
  private static TestPki.Issued workerCert;
  private static TestPki.Issued operatorCert;
  /** What would give each client key away, taken when the key was made (rotation replaces the file). */
  private static final Map<Path, List<byte[]>> clientKeys = new HashMap<>();
  private static Path operatorKeys;
  private static Path emptyProfile;
  private static ChildProcess worker;
  private static McpClient agent;
  private static TemporalConnection observer;
  private static ExecutionDirectory directory;
  private static final List<String> executionIds = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    Path temporal = TemporalCli.binaryOrSkip();
    TlsTerminator.binaryOrSkip();
    cluster = new Cluster();
    tls = Files.createDirectories(cluster.dir.resolve("tls"));
    pki = TestPki.newCa("onceport-test-ca");
    ca = pki.writeCa(tls.resolve("ca.pem"));
    otherCa = TestPki.newCa("some-other-ca").writeCa(tls.resolve("other-ca.pem"));
    TestPki.Issued serverCert = pki.server(tls, "server");
    workerCert = pki.client(tls, "worker", "onceport-worker");
    operatorCert = pki.client(tls, "operator", "onceport-operator");
    clientKeys.put(workerCert.key(), SecretSearch.pemSecrets(workerCert.key()));
    clientKeys.put(operatorCert.key(), SecretSearch.pemSecrets(operatorCert.key()));
    emptyProfile = Files.writeString(cluster.dir.resolve("temporal.toml"), "");
    prepareDataDir();
    server = TemporalCliServer.start(temporal, Files.createDirectories(cluster.dir.resolve("temporal")), "127.0.0.1", 0, 0, true,
        null, Duration.ofSeconds(90));
    nginx = TlsTerminator.start(Files.createDirectories(cluster.dir.resolve("nginx")), server.port(), serverCert, ca, API_KEY);
    // The test's own view of the engine: straight to the dev server, behind nginx's back.
    observer = TemporalConnection.connect(server.target(), "default", false, Payloads.dataConverter(true, cluster.data),
        Duration.ofSeconds(30));
    directory = new ExecutionDirectory(observer);
  }

  /** A contract whose credential an operator approves for each use, the vault holding it, operator carol. */
  private static void prepareDataDir() throws Exception {
    Files.writeString(cluster.contracts.resolve("deploy_approved.yaml"), Contracts.deployApprovedYaml(cluster.target.url()));
    try (Vault v = Vault.create(cluster.data, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("deploy", Credential.Type.BEARER, null, null, "deploy_not_a_real_token"), true);
    }
    operatorKeys = cluster.dir.resolve("operator-keys");
    Operators.register(cluster.data, "carol").write(operatorKeys.resolve("carol.key"), false);
  }

  @AfterAll
  static void stop() throws Exception {
    if (observer != null) {
      observer.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (nginx != null) {
      nginx.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Only Temporal's standard variables: no ONCEPORT_TEMPORAL, no Temporal flag; the user's temporal.toml kept out. */
  private static Map<String, String> standard(String address) {
    Map<String, String> env = new HashMap<>();
    env.put("ONCEPORT_TEMPORAL", null);
    env.put("ONCEPORT_NAMESPACE", null);
    env.put("TEMPORAL_CONFIG_FILE", emptyProfile.toString());
    env.put("TEMPORAL_ADDRESS", address);
    env.put("TEMPORAL_TLS_SERVER_CA_CERT_PATH", ca.toString());
    return env;
  }

  private static Map<String, String> mtls(TestPki.Issued cert) {
    Map<String, String> env = standard(nginx.mtlsAddress());
    env.put("TEMPORAL_TLS_CLIENT_CERT_PATH", cert.cert().toString());
    env.put("TEMPORAL_TLS_CLIENT_KEY_PATH", cert.key().toString());
    return env;
  }

  private static Map<String, String> apiKey() {
    Map<String, String> env = standard(nginx.bearerAddress());
    env.put("TEMPORAL_API_KEY", API_KEY);
    return env;
  }

  /** An operator command in a child JVM; its output, failing on a non-zero exit. */
  private static String cli(Map<String, String> env, String... args) throws Exception {
    ChildProcess p = cluster.start(env, args);
    int exit = p.awaitExit(CLI);
    String out = String.join("\n", p.output());
    assertEquals(0, exit, "onceport " + String.join(" ", args) + ":\n" + out);
    return out;
  }

  private static String[] operator(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--yes", "--data", cluster.data.toString(), "--key-dir", operatorKeys.toString(), "--operator", "carol"));
    return all.toArray(String[]::new);
  }

  private static String sessionIdOf(McpClient client) throws Exception {
    String payload = client.session().substring(0, client.session().indexOf('.'));
    var claims = JSON.readTree(Base64.getUrlDecoder().decode(payload));
    // The session names the token's credential generation ("g"): sessions end with the token.
    return SessionIds.forCall(Cluster.AGENT, claims.path("g").asText(null), claims.get("n").asText(), null, null, null);
  }

  @Test
  @Order(1)
  void aWorkerOnMtlsAndAFrontEndOnAnApiKeyConfiguredByTheEnvironmentAloneCarryACallToTheTargetOnce() throws Exception {
    Map<String, String> workerEnv = mtls(workerCert);
    workerEnv.put(PassphraseSource.ENV, PASS);
    worker = cluster.start(workerEnv, "worker", "--task-queue", Cluster.TASK_QUEUE, "--data", cluster.data.toString(),
        "--session-authorization", "operator", "--journal-writer", "secured");
    ChildProcess frontend = cluster.start(apiKey(), "frontend", "--task-queue", Cluster.TASK_QUEUE, "--data",
        cluster.data.toString(), "--contracts", cluster.contracts.toString(), "--listen", "127.0.0.1:0",
        "--session-authorization", "operator", "--call-wait", "PT3S");
    Cluster.awaitWorker(worker);
    int port = Cluster.awaitFrontend(frontend);
    assertTrue(worker.output().stream().anyMatch(l -> l.contains("at Temporal " + nginx.mtlsAddress() + " (namespace default, mTLS)")),
        "the start-up line names address, namespace and mTLS: " + worker.output());
    assertTrue(frontend.output().stream().anyMatch(l -> l.contains("Temporal " + nginx.bearerAddress() + " (namespace default, API key)")),
        "the start-up line names address, namespace and API key: " + frontend.output());

    agent = cluster.client(port);
    String session = sessionIdOf(agent);
    JsonNode args = JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.12.6-secured\"}");
    JsonNode first = agent.call(1, "create_release", args);
    assertEquals("awaiting_session_authorization", first.at("/result/structuredContent/state").asText(), first.toString());
    String id = first.at("/result/structuredContent/execution_id").asText();
    executionIds.add(id);
    assertEquals(0, cluster.dispatches(id), "nothing is sent before the operator authorizes the session");

    String authorized = cli(apiKey(), operator("sessions", "authorize", session));
    assertTrue(authorized.contains(session + ": authorized by carol"), authorized);
    Records.await(directory, id, r -> r.state() == ExecutionState.COMPLETED, Duration.ofSeconds(60));
    JsonNode retry = agent.call(2, "create_release", args);
    assertEquals(id, retry.at("/result/structuredContent/execution_id").asText(), retry.toString());
    assertEquals("completed", retry.at("/result/structuredContent/state").asText(), retry.toString());
    assertEquals(1, cluster.dispatches(id), "the target received the call once");
  }

  @Test
  @Order(2)
  void approveExecutionsListAndShowAndInvestigateWorkThroughEitherPort() throws Exception {
    String id = agent.call(3, "deploy_approved", JSON.readTree("{\"service\":\"catalog\",\"version\":\"secured-approved\"}"))
        .at("/result/structuredContent/execution_id").asText();
    executionIds.add(id);
    Records.await(directory, id, r -> r.state() == ExecutionState.AWAITING_APPROVAL, Duration.ofSeconds(60));
    assertEquals(0, cluster.dispatches(id));

    String approved = cli(mtls(operatorCert), operator("approve", id, "--reason", "change 42"));
    assertTrue(approved.contains(id + ": "), approved);
    ExecutionRecord done = Records.await(directory, id, r -> r.state() == ExecutionState.COMPLETED, Duration.ofSeconds(60));
    assertEquals("carol", done.authorization().by());
    assertEquals(1, cluster.dispatches(id), "approved once, sent once");

    String shown = cli(apiKey(), "executions", "show", id, "--data", cluster.data.toString());
    assertTrue(shown.contains(id) && shown.contains("completed") && shown.contains("change 42"), shown);
    String listed = listUntilBoth(executionIds.get(0), id);
    assertTrue(listed.contains("deploy_approved") && listed.contains("create_release"), listed);
    String investigated = cli(mtls(operatorCert), "investigate", executionIds.get(0), "--data", cluster.data.toString());
    assertTrue(investigated.contains("investigation: " + executionIds.get(0)), investigated);
    assertFalse(investigated.contains("add --temporal"), "TEMPORAL_ADDRESS chose the cluster: " + investigated);
  }

  /** {@code executions list} through the mTLS port until visibility (eventually consistent) shows both executions. */
  private static String listUntilBoth(String a, String b) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String out = "";
    while (System.nanoTime() < deadline) {
      out = cli(mtls(operatorCert), "executions", "list", "--data", cluster.data.toString());
      if (out.contains(a) && out.contains(b)) {
        return out;
      }
    }
    throw new AssertionError("executions list did not list " + a + " and " + b + ":\n" + out);
  }

  @Test
  @Order(3)
  void aWorkerWithoutItsClientCertificateWithTheWrongCaOrWithoutTheKeyFailsAtOnceNamingTheSetting() throws Exception {
    Map<String, String> noCert = mtls(workerCert);
    noCert.remove("TEMPORAL_TLS_CLIENT_CERT_PATH");
    noCert.remove("TEMPORAL_TLS_CLIENT_KEY_PATH");
    Map<String, String> wrongCa = mtls(workerCert);
    wrongCa.put("TEMPORAL_TLS_SERVER_CA_CERT_PATH", otherCa.toString());
    Map<String, String> noKey = apiKey();
    noKey.remove("TEMPORAL_API_KEY");
    Map<String, String> expected = Map.of(
        "onceport: Temporal at " + nginx.mtlsAddress() + " requires a client certificate (mTLS) and none is set: set "
            + "TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or --tls-cert and --tls-key)", "noCert",
        "onceport: Temporal at " + nginx.mtlsAddress() + " presented a certificate not signed by the CA in " + otherCa
            + " (TEMPORAL_TLS_SERVER_CA_CERT_PATH): fix TEMPORAL_TLS_SERVER_CA_CERT_PATH to name the CA that signed the "
            + "server's certificate", "wrongCa",
        "onceport: Temporal at " + nginx.bearerAddress() + " refused the call as unauthenticated (UNAUTHENTICATED HTTP status "
            + "code 401): give an API key with TEMPORAL_API_KEY or --api-key-file, or a client certificate with "
            + "TEMPORAL_TLS_CLIENT_CERT_PATH", "noKey");
    Map<String, Map<String, String>> envs = Map.of("noCert", noCert, "wrongCa", wrongCa, "noKey", noKey);
    Map<String, ChildProcess> workers = new HashMap<>();
    for (var e : envs.entrySet()) {
      workers.put(e.getKey(), cluster.start(e.getValue(), "worker", "--task-queue", Cluster.TASK_QUEUE, "--data",
          cluster.data.toString(), "--journal-writer", "misconfigured-" + e.getKey()));
    }
    for (var e : expected.entrySet()) {
      ChildProcess w = workers.get(e.getValue());
      assertEquals(1, w.awaitExit(CLI), e.getValue() + ": " + w.output());
      List<String> lines = w.output().stream().filter(l -> !l.isBlank()).toList();
      assertEquals(e.getKey(), lines.get(lines.size() - 1), e.getValue() + ": " + lines);
      assertTrue(lines.stream().noneMatch(l -> l.contains("retrying in")), "a setting to fix is not retried: " + lines);
    }
  }

  @Test
  @Order(4)
  void aRotatedClientCertificateIsUsedByTheRunningWorkersNextConnection() throws Exception {
    long pid = worker.pid();
    TestPki.Issued next = pki.client(tls, "worker-next", "onceport-worker-rotated");
    clientKeys.put(next.key(), SecretSearch.pemSecrets(next.key()));
    TestPki.rotate(workerCert, next);
    nginx.reload(); // the terminator closes its connections, as a restarted or scaled load balancer does
    String id = agent.call(4, "create_release", JSON.readTree("{\"service\":\"catalog\",\"version\":\"after-rotation\"}"))
        .at("/result/structuredContent/execution_id").asText();
    executionIds.add(id);
    Records.await(directory, id, r -> r.state() == ExecutionState.COMPLETED, Duration.ofSeconds(90));
    assertEquals(1, cluster.dispatches(id));
    String serial = "serial=" + next.serialHex() + " verify=SUCCESS";
    Conditions.await("a request with the rotated certificate in nginx's log", Duration.ofSeconds(30),
        () -> accessLog().stream().anyMatch(l -> l.contains(" " + nginx.mtlsPort + " 200 ") && l.contains(serial)));
    assertTrue(worker.isAlive() && worker.pid() == pid, "the same worker process, not restarted");
    assertEquals(1, worker.output().stream().filter(l -> l.contains("onceport: worker on task queue")).count());
  }

  private static List<String> accessLog() {
    try {
      return nginx.accessLog();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  @Order(5)
  void neitherTheApiKeyNorAClientKeyIsInTheDataDirTheLogsOrTemporalHistory() throws Exception {
    SecretSearch search = new SecretSearch();
    search.addTree(cluster.data);
    search.addTree(cluster.dir.resolve("temporal")); // the server's database and log
    cluster.started().forEach(p -> search.add("output of pid " + p.pid(), String.join("\n", p.output())));
    for (Path log : nginx.logFiles()) {
      search.addFile(log);
    }
    for (var info : observer.client().listExecutions("").toList()) {
      search.add("history of " + info.getExecution().getWorkflowId(),
          observer.client().fetchHistory(info.getExecution().getWorkflowId(), info.getExecution().getRunId()).getHistory().toByteArray());
    }
    assertTrue(search.size() > 20, "searched " + search.size() + " places");
    assertTrue(!search.findAll(executionIds.get(0)).isEmpty(), "the search sees what is there (an execution id)");
    assertEquals(List.of(), search.findAll(API_KEY), "the API key");
    for (var key : clientKeys.entrySet()) {
      for (byte[] secret : key.getValue()) {
        assertEquals(List.of(), search.findAll(secret), "the client key made as " + key.getKey());
      }
    }
  }
}
