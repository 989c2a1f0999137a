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
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.codec.Payloads;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.testing.Cluster;
import io.onceport.testing.McpClient;
import io.onceport.testing.Records;
import io.onceport.testing.TemporalCli;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.execution.ExecutionState;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.common.converter.DataConverter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Temporal's user metadata tells the call's story (CallStory), on a real Temporal server (the CLI's
 * dev server keeps what the embedded test server may not): the start event's summary says what was
 * asked and where it goes, every send activity says which send, to where and why the replay policy
 * sent it, and the run's current details (the SDK's metadata
 * query, what the UI shows) give the state, what each send observed and what the policy decided —
 * for a completed call and for an irreversible call whose response was lost ({@code needs_review}).
 * Then a search of every decoded summary and of the current details finds neither the vault
 * credential the send carried nor the value of the contract's secret argument.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CallStoryOnTemporalServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PASS = "call story passphrase";
  private static final String TOKEN = "tok-story-Vx81-do-not-leak";
  /** Both runs' story as the UI shows it, for a reader of the test output. */
  private static final Path STORY = Path.of("target", "ui", "call-story.txt");
  private static final String SECRET_ARGUMENT = "sk-story-argument-5d0c-do-not-leak";

  @Test
  void theStartEventActivitiesAndCurrentDetailsTellTheCallWithoutItsSecrets() throws Exception {
    var binary = TemporalCli.binaryOrSkip();
    try (Cluster cluster = new Cluster()) {
      Files.writeString(cluster.contracts.resolve("notify_with_key.yaml"), """
          tool: notify_with_key
          description: Post a message with a per-call key (irreversible).
          input_schema:
            type: object
            required: [message, api_key]
            properties:
              message: {type: string}
              api_key: {type: string}
            additionalProperties: false
          channel: http
          http:
            method: POST
            url: %s/v1/notifications
            idempotency_header: Idempotency-Key
            credential: notify
          replay:
            class: irreversible
            attach_window: PT1H
          fingerprint:
            secret: [api_key]
          """.formatted(cluster.target.url()));
      try (Vault v = Vault.create(cluster.data, PASS.toCharArray(), KdfParameters.forTests())) {
        v.put(new Credential("notify", Credential.Type.BEARER, null, null, TOKEN), false);
      }
      try (TemporalCliServer server = TemporalCliServer.start(binary, cluster.data, "127.0.0.1", 0, 0, true, null, Duration.ofSeconds(90));
          TemporalConnection connection = TemporalConnection.connect(server.target(), "default", false,
              Payloads.dataConverter(true, cluster.data), Duration.ofSeconds(10))) {
        Cluster.awaitWorker(cluster.start(Map.of(PassphraseSource.ENV, PASS), "worker", "--temporal", server.target(), "--task-queue",
            Cluster.TASK_QUEUE, "--data", cluster.data.toString(), "--session-authorization", "auto", "--journal-writer", "w1"));
        McpClient agent = cluster.client(Cluster.awaitFrontend(cluster.frontend(server.target())));
        ExecutionDirectory directory = new ExecutionDirectory(connection);
        DataConverter converter = Payloads.dataConverter(true, cluster.data);

        JsonNode done = agent.call(1, "create_release", JSON.readTree("{\"service\":\"story\",\"version\":\"7\"}"));
        assertEquals("completed", done.at("/result/structuredContent/state").asText(), done.toString());
        ExecutionRecord completed = directory.record(directory.locate(done.at("/result/structuredContent/execution_id").asText())
            .orElseThrow());
        String releases = cluster.target.url() + "/v1/releases";
        Story story = story(connection, converter, completed);
        assertEquals("create_release region=us-east-1 service=story version=7 → POST " + releases + " (http, status_query)", story.start);
        assertTrue(story.activities.contains("send 1 → POST " + releases + " (http, status_query) — send: first send"),
            story.activities.toString());
        assertTrue(story.activities.stream().anyMatch(s -> s.startsWith("authorize create_release for agent:deployer")),
            story.activities.toString());
        assertTrue(story.details.contains("state: **completed**"), story.details);
        assertTrue(story.details.contains("send 1: observed answered 201; replay policy: settle_completed"), story.details);

        cluster.armFault("drop-after-accept", 1);
        JsonNode lost = agent.call(2, "notify_with_key",
            JSON.readTree("{\"message\":\"story of a lost answer\",\"api_key\":\"" + SECRET_ARGUMENT + "\"}"));
        String lostId = lost.at("/result/structuredContent/execution_id").asText();
        ExecutionRecord review = Records.await(directory, lostId, r -> r.state() == ExecutionState.NEEDS_REVIEW, Duration.ofSeconds(60));
        assertEquals(1, cluster.dispatches(lostId));
        String notifications = cluster.target.url() + "/v1/notifications";
        Story reviewed = awaitDetails(connection, converter, review, "**needs_review**");
        assertEquals("notify_with_key api_key=*** message=story of a lost answer → POST " + notifications + " (http, irreversible)",
            reviewed.start);
        assertTrue(reviewed.activities.contains("send 1 → POST " + notifications + " (http, irreversible) — send: first send"),
            reviewed.activities.toString());
        assertTrue(reviewed.details.contains("send 1: observed outcome_unknown; replay policy: needs_review"), reviewed.details);
        assertTrue(reviewed.details.contains("an irreversible action is never re-sent automatically"), reviewed.details);

        Files.createDirectories(STORY.getParent());
        Files.writeString(STORY, story.everything() + "\n\n" + reviewed.everything());
        for (Story s : List.of(story, reviewed)) {
          for (String secret : List.of(TOKEN, SECRET_ARGUMENT)) {
            assertFalse(s.everything().contains(secret), "a secret in the story:\n" + s.everything());
          }
        }
      }
    }
  }

  /** What the UI shows of one run: the start summary, every activity's and marker's summary, the current details. */
  private record Story(String start, List<String> activities, String details) {
    String everything() {
      return start + "\n" + String.join("\n", activities) + "\n" + details;
    }
  }

  private static Story story(TemporalConnection connection, DataConverter converter, ExecutionRecord r) {
    String start = null;
    List<String> activities = new ArrayList<>();
    for (HistoryEvent e : connection.client().fetchHistory(r.workflowId(), r.runId()).getEvents()) {
      if (!e.hasUserMetadata() || !e.getUserMetadata().hasSummary()) {
        continue;
      }
      String summary = text(converter, e.getUserMetadata().getSummary());
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
        start = summary;
      } else {
        activities.add(summary);
      }
    }
    WorkflowMetadata metadata = connection.client().newUntypedWorkflowStub(r.workflowId())
        .query("__temporal_workflow_metadata", WorkflowMetadata.class);
    return new Story(start, activities, metadata.getCurrentDetails());
  }

  /** The details are set at the run's next wait: polls until they say {@code expected} (bounded). */
  private static Story awaitDetails(TemporalConnection connection, DataConverter converter, ExecutionRecord r, String expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Story s = story(connection, converter, r);
    while (!s.details().contains(expected) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      s = story(connection, converter, r);
    }
    return s;
  }

  private static String text(DataConverter converter, Payload payload) {
    return converter.fromPayload(payload, String.class, String.class);
  }
}
