package io.onceport.endtoend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.app.Main;
import io.onceport.app.engine.TemporalCliServer;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.shared.codec.Payloads;
import io.onceport.testing.Contracts;
import io.onceport.testing.ChildProcess;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.Operators;
import io.onceport.testing.Records;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionVersioningInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An upgrade with Worker Versioning, end to end on the Temporal CLI's dev server (a real server
 * with Worker Deployments; its drainage refresh shortened to seconds): two builds are two worker
 * child processes of this jar with different {@code --build-id}s, one front end in front of both.
 * Build A starts executions — one left {@code awaiting_approval}, one in {@code needs_review}, one
 * completed; build B starts and is made current with {@code temporal worker deployment
 * set-current-version}; new executions run on B; the operator's approval and resolution finish the
 * waiting executions on A's worker (every workflow task and activity of theirs ran in A's process);
 * A reports drained and is stopped; the demo target's {@code /ledger} shows one request per send.
 * The run's figures (executions per build, sends per execution) are written to
 * target/versioning/upgrade-run.txt.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class WorkerVersioningUpgradeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String BUILD_A = "upgrade-a";
  private static final String BUILD_B = "upgrade-b";
  private static final String PASS = "versioning upgrade passphrase";
  private static final Path REPORT = Path.of("target", "versioning", "upgrade-run.txt");

  private Cluster cluster;
  private TemporalCliServer server;
  private Path binary;
  private Path operatorKeys;

  @Test
  void waitingExecutionsFinishOnTheirBuildWhileTheNewBuildTakesNewOnesAndNothingIsSentTwice() throws Exception {
    binary = TemporalCli.binaryOrSkip();
    try (Cluster c = new Cluster()) {
      cluster = c;
      prepareApprovalsAndOperator();
      shortestLateArrivalTails(cluster.contracts);
      server = TemporalCliServer.start(binary, cluster.data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90), List.of(
          "matching.wv.VersionDrainageStatusRefreshInterval=\"1s\"", "matching.wv.VersionDrainageStatusVisibilityGracePeriod=\"1s\""));
      try (TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false,
          Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10))) {
        run(connection, new ExecutionDirectory(connection));
      } finally {
        server.close();
      }
    }
  }

  private void run(TemporalConnection connection, ExecutionDirectory directory) throws Exception {
    ChildProcess workerA = worker(BUILD_A, "wa");
    workerA.awaitLine("build " + BUILD_A + ": current (made current: a new deployment)", Cluster.START_LINE);
    int mcpPort = Cluster.awaitFrontend(cluster.frontend(server.target()));
    McpClient agent = cluster.client(mcpPort);

    // Build A: one execution waits for an approval, one for a review, one completes.
    JsonNode approvalArgs = JSON.readTree("{\"service\":\"catalog\",\"version\":\"2026.12.6\"}");
    String approvalId = executionId(agent.call(1, "deploy_approved", approvalArgs));
    Records.await(directory, approvalId, r -> r.state() == ExecutionState.AWAITING_APPROVAL, Duration.ofSeconds(30));
    cluster.armFault("drop-after-accept", 1);
    JsonNode reviewArgs = JSON.readTree("{\"message\":\"rolled out catalog 2026.12.6\"}");
    String reviewId = executionId(agent.call(2, "send_notification", reviewArgs));
    Records.await(directory, reviewId, r -> r.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(30));
    String completedOnA = completed(agent.call(3, "create_release", JSON.readTree("{\"service\":\"search\",\"version\":\"1\"}")));

    // Build B joins: not current until the operator says so.
    ChildProcess workerB = worker(BUILD_B, "wb");
    workerB.awaitLine("build " + BUILD_B + ": not current: build " + BUILD_A + " is", Cluster.START_LINE);
    String switched = temporal("worker", "deployment", "set-current-version", "--deployment-name", "onceport", "--build-id", BUILD_B, "--yes");
    assertTrue(switched.contains("Successfully set the current worker deployment version"), switched);

    // What docs/production.md gives operators to see what still runs on the old build.
    // The two waiting ones; and the completed one while it is inside its late-arrival tail.
    awaitListed(connection, "WorkflowType = 'ToolExecution' AND TemporalWorkerDeploymentVersion = 'onceport:" + BUILD_A
        + "' AND ExecutionStatus = 'Running'", 2, 3);

    McpClient later = cluster.client(mcpPort);
    List<String> onB = new ArrayList<>();
    onB.add(completed(later.call(1, "create_release", JSON.readTree("{\"service\":\"search\",\"version\":\"2\"}"))));
    onB.add(completed(later.call(2, "create_release", JSON.readTree("{\"service\":\"billing\",\"version\":\"2\"}"))));
    onB.add(completed(later.call(3, "send_notification", JSON.readTree("{\"message\":\"build B took over\"}"))));

    // The operator decides; the agent asks again and gets the answers; the runs close on A.
    assertTrue(operator("approve", approvalId, "--yes", "--reason", "change ticket checked").contains(approvalId));
    operator("executions", "resolve", reviewId, "--completed", "--reason", "the message is in the channel");
    assertEquals(approvalId, completed(agent.call(4, "deploy_approved", approvalArgs)));
    JsonNode reviewed = agent.call(5, "send_notification", reviewArgs);
    assertEquals(reviewId, executionId(reviewed));
    assertEquals("completed", reviewed.at("/result/structuredContent/state").asText(), reviewed.toString());
    agent.endSession();
    later.endSession();
    for (String id : List.of(approvalId, reviewId, completedOnA)) {
      Records.awaitClosed(directory, id, Duration.ofSeconds(120)); // the 30 s tail, then 30 s after the last attach
    }

    String drained = awaitDrained(BUILD_A, Duration.ofSeconds(90));
    workerA.close();
    McpClient last = cluster.client(mcpPort);
    onB.add(completed(last.call(1, "create_release", JSON.readTree("{\"service\":\"search\",\"version\":\"3\"}"))));
    last.endSession();

    Map<String, String> builds = new LinkedHashMap<>();
    for (String id : List.of(approvalId, reviewId, completedOnA)) {
      builds.put(id, assertRanOnlyOn(connection, directory, id, BUILD_A, workerA.pid()));
    }
    for (String id : onB) {
      builds.put(id, assertRanOnlyOn(connection, directory, id, BUILD_B, workerB.pid()));
    }
    Map<String, Long> sends = sendsPerExecution(builds.keySet());
    builds.keySet().forEach(id -> assertEquals(1L, sends.get(id), id + " was sent " + sends.get(id) + " times"));
    report(builds, sends, drained);
  }

  /** A contract whose credential an operator approves for each use, the vault holding it, and the operator carol. */
  private void prepareApprovalsAndOperator() throws IOException {
    Files.writeString(cluster.contracts.resolve("deploy_approved.yaml"), Contracts.deployApprovedYaml(cluster.target.url()));
    try (Vault v = Vault.create(cluster.data, PASS.toCharArray(), KdfParameters.forTests())) {
      v.put(new Credential("deploy", Credential.Type.BEARER, null, null, "deploy_not_a_real_token"), true);
    }
    OperatorKey carol = Operators.register(cluster.data, "carol");
    operatorKeys = cluster.dir.resolve("operator-keys");
    carol.write(operatorKeys.resolve("carol.key"), false);
  }

  private ChildProcess worker(String buildId, String writer) throws IOException {
    return cluster.start(Map.of(PassphraseSource.ENV, PASS), "worker", "--temporal", server.target(), "--task-queue", Cluster.TASK_QUEUE,
        "--data", cluster.data.toString(), "--session-authorization", "auto", "--journal-writer", writer, "--build-id", buildId);
  }

  /**
   * Checks that the execution is pinned to {@code buildId} and that every workflow task and every
   * activity of its run was taken by the worker process {@code pid} (worker identity {@code pid@host}).
   */
  private static String assertRanOnlyOn(TemporalConnection connection, ExecutionDirectory directory, String executionId, String buildId,
      long pid) {
    ExecutionRecord record = directory.record(directory.locate(executionId).orElseThrow());
    WorkflowExecutionVersioningInfo versioning = connection.client().newUntypedWorkflowStub(record.workflowId())
        .describe().getRawDescription().getWorkflowExecutionInfo().getVersioningInfo();
    assertEquals(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, versioning.getBehavior(), executionId + ": " + versioning);
    assertEquals(buildId, versioning.getDeploymentVersion().getBuildId(), executionId + ": " + versioning);
    List<HistoryEvent> events = connection.client().fetchHistory(record.workflowId(), record.runId()).getEvents();
    int taken = 0;
    for (HistoryEvent e : events) {
      String identity = null;
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        identity = e.getWorkflowTaskCompletedEventAttributes().getIdentity();
        assertEquals(buildId, e.getWorkflowTaskCompletedEventAttributes().getDeploymentVersion().getBuildId(), executionId + " event " + e.getEventId());
      } else if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        identity = e.getActivityTaskStartedEventAttributes().getIdentity();
      }
      if (identity != null) {
        taken++;
        assertTrue(identity.startsWith(pid + "@"), executionId + " event " + e.getEventId() + " taken by " + identity + ", not build "
            + buildId + "'s worker (pid " + pid + ")");
      }
    }
    assertTrue(taken >= 2, executionId + ": " + taken + " tasks");
    return buildId;
  }

  /** Requests the demo target received per Idempotency-Key (the execution id), read from its {@code GET /ledger}. */
  private Map<String, Long> sendsPerExecution(Iterable<String> executionIds) throws IOException, InterruptedException {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(cluster.target.url() + "/ledger"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    Map<String, Long> counts = new TreeMap<>();
    executionIds.forEach(id -> counts.put(id, 0L));
    for (JsonNode entry : JSON.readTree(r.body())) {
      counts.computeIfPresent(entry.path("key").asText(), (k, n) -> n + 1);
    }
    return counts;
  }

  /** Waits until a visibility query lists {@code count} executions (visibility is eventually consistent). */
  private static void awaitListed(TemporalConnection connection, String query, long least, long most) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long found = -1;
    while (System.nanoTime() < deadline) {
      found = connection.client().listExecutions(query).count();
      if (found >= least && found <= most) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError(query + " listed " + found + " executions, not " + least + "–" + most);
  }

  /**
   * Every contract of the run with the shortest late-arrival tail (30 s): A's executions close in
   * real time on the dev server, whose clock cannot be skipped, so build A can drain in the test.
   */
  private static void shortestLateArrivalTails(Path contracts) throws java.io.IOException {
    try (var files = java.nio.file.Files.list(contracts)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        String yaml = java.nio.file.Files.readString(f);
        if (yaml.contains("\nreplay:\n") && !yaml.contains("dedupe_after_delivery")) {
          java.nio.file.Files.writeString(f, yaml.replace("\nreplay:\n", "\nreplay:\n  dedupe_after_delivery: PT30S\n"));
        }
      }
    }
  }

  /** Polls {@code temporal worker deployment describe-version} until the build reports drained; returns its JSON. */
  private String awaitDrained(String buildId, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    String json = "";
    while (System.nanoTime() < deadline) {
      json = temporal("worker", "deployment", "describe-version", "--deployment-name", "onceport", "--build-id", buildId, "-o", "json");
      if (JSON.readTree(json).at("/drainageInfo/drainageStatus").asText().equals("drained")) {
        return json;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("build " + buildId + " did not report drained within " + timeout + ":\n" + json);
  }

  /** Runs the Temporal CLI against the test server (bounded: 60 s) and returns its stdout; fails on a non-zero exit. */
  private String temporal(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(binary.toString()));
    command.addAll(List.of(args));
    command.addAll(List.of("--address", server.target(), "--namespace", "default"));
    Path out = Files.createTempFile(cluster.dir, "temporal", ".out");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("temporal " + String.join(" ", args) + " did not finish within 60 s");
    }
    String text = Files.readString(out);
    assertEquals(0, p.exitValue(), "temporal " + String.join(" ", args) + ":\n" + text);
    return text;
  }

  /** Runs an {@code onceport} operator command in this JVM, signed as carol; returns stdout. */
  private synchronized String operator(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      String[] all = Stream.concat(Stream.of(args), Stream.of("--temporal", server.target(), "--data", cluster.data.toString(),
          "--key-dir", operatorKeys.toString(), "--operator", "carol")).toArray(String[]::new);
      int exit = Main.run(all);
      assertEquals(0, exit, o.toString(StandardCharsets.UTF_8) + e.toString(StandardCharsets.UTF_8));
      return o.toString(StandardCharsets.UTF_8);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  private static String executionId(JsonNode answer) {
    String id = answer.at("/result/structuredContent/execution_id").asText();
    assertTrue(id.startsWith("act_"), answer.toString());
    return id;
  }

  private static String completed(JsonNode answer) {
    assertEquals("completed", answer.at("/result/structuredContent/state").asText(), answer.toString());
    return executionId(answer);
  }

  private static void report(Map<String, String> builds, Map<String, Long> sends, String drained) throws IOException {
    Map<String, Long> perBuild = new TreeMap<>();
    builds.values().forEach(b -> perBuild.merge(b, 1L, Long::sum));
    StringBuilder text = new StringBuilder("versioned upgrade run (WorkerVersioningUpgradeTest)\n");
    text.append("executions per build: ").append(perBuild).append('\n');
    builds.forEach((id, build) -> text.append("  ").append(id).append(" build ").append(build).append(" sends ").append(sends.get(id)).append('\n'));
    text.append("build ").append(BUILD_A).append(" drained: ").append(JSON.readTree(drained).at("/drainageInfo").toString()).append('\n');
    Files.createDirectories(REPORT.getParent());
    Files.writeString(REPORT, text.toString());
    System.out.print(text);
  }
}
