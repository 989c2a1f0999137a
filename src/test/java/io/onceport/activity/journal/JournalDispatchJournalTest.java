package io.onceport.activity.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.journal.JournalEntry;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class JournalDispatchJournalTest {
  static final NoteSigner SIGNER = NoteSigner.generate("dispatch-test");
  @TempDir Path data;
  final AtomicReference<FailingFileChannel> channel = new AtomicReference<>();

  Journal open() {
    return Journal.open(JournalOptions.newBuilder(data.resolve("journal/activity"), "w1", SIGNER)
        .setCheckpointInterval(Duration.ZERO)
        .setChannelOpener(p -> {
          FailingFileChannel c = new FailingFileChannel(JournalOptions.DEFAULT_OPENER.open(p));
          channel.set(c);
          return c;
        })
        .build());
  }

  static DispatchRequest request(int attempt) {
    ToolContract contract = new ToolContract("create_ticket", "Creates a ticket", "{}", null,
        ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://127.0.0.1:1/tickets", null, Map.of(), "Idempotency-Key", null, 1000),
        null, new ReplaySpec(ReplayClass.IDEMPOTENCY_KEY, Duration.ofMinutes(5), null), null, null);
    return new DispatchRequest("act_1", "fp_1", contract, "{\"title\":\"x\"}", attempt);
  }

  List<JsonNode> entries() throws IOException {
    ObjectMapper json = new ObjectMapper();
    Path seg = data.resolve("journal/activity/w1.jsonl");
    return Files.readAllLines(seg).stream().map(l -> {
      try {
        return json.readTree(l);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }).toList();
  }

  SendLedger ledger() {
    return SendLedger.open(data.resolve("journal/activity"));
  }

  @Test
  void dispatchedEntryIsWrittenOncePerAttemptAndASecondSendOfAnAttemptFailsClosed() throws IOException {
    try (Journal j = open(); SendLedger ledger = ledger()) {
      JournalDispatchJournal hook = new JournalDispatchJournal(j, ledger);
      hook.dispatched(request(1));
      // maximumAttempts = 1: only a replayed or reset history asks for attempt 1 again
      ApplicationFailure again = assertThrows(ApplicationFailure.class, () -> hook.dispatched(request(1)));
      assertEquals(ErrorTypes.SENT_BEFORE, again.getType());
      assertTrue(again.isNonRetryable());
      assertEquals("dispatch not sent: the journal already holds act_1/dispatched/1: this send was made before"
          + " (a reset or replayed history asked for it again)", again.getOriginalMessage());
      hook.dispatched(request(2));
    }
    List<JsonNode> entries = entries();
    assertEquals(2, entries.size());
    JsonNode first = entries.get(0);
    assertEquals("act_1", first.get("execution_id").asText());
    assertEquals("fp_1", first.get("fingerprint").asText());
    assertEquals("dispatched", first.get("transition").asText());
    assertEquals(1, first.get("attempt").asInt());
    assertEquals("act_1/dispatched/1", first.get("key").asText());
    assertEquals("create_ticket", first.get("detail").get("tool").asText());
    assertEquals(2, entries.get(1).get("attempt").asInt());
  }

  @Test
  void aFullDiskFailsTheDispatchClosedAndLeavesNoPartialEntry() throws IOException {
    try (Journal j = open(); SendLedger ledger = ledger()) {
      JournalDispatchJournal hook = new JournalDispatchJournal(j, ledger);
      hook.dispatched(request(1));
      long before = Files.size(data.resolve("journal/activity/w1.jsonl"));
      channel.get().partialBytes = 17;
      channel.get().writeFailure = new IOException("No space left on device");
      ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> hook.dispatched(request(2)));
      assertEquals(ErrorTypes.JOURNAL_UNAVAILABLE, f.getType());
      assertTrue(f.isNonRetryable());
      assertEquals("dispatch not sent: the dispatched journal entry could not be made durable: "
          + "journal activity/w1 cannot write durably: No space left on device", f.getOriginalMessage());
      assertEquals(before, Files.size(data.resolve("journal/activity/w1.jsonl")));
      // the journal stays closed for business, even for other executions
      channel.get().writeFailure = null;
      assertThrows(ApplicationFailure.class, () -> hook.dispatched(request(3)));
    }
    assertTrue(new JournalVerifier(SIGNER.verifier())
        .verify(data.resolve("journal/activity/w1.jsonl"), null).ok());
  }

  @Test
  void aFailedFsyncFailsTheDispatchClosed() {
    try (Journal j = open(); SendLedger ledger = ledger()) {
      JournalDispatchJournal hook = new JournalDispatchJournal(j, ledger);
      channel.get().forceFailure = new IOException("Input/output error");
      ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> hook.dispatched(request(1)));
      assertEquals(ErrorTypes.JOURNAL_UNAVAILABLE, f.getType());
      assertTrue(f.isNonRetryable());
      assertEquals("dispatch not sent: the dispatched journal entry could not be made durable: "
          + "journal activity/w1 cannot write durably: Input/output error", f.getOriginalMessage());
    }
  }

  @Test
  void aDataDirWhoseJournalCannotBeCreatedFailsAtStartup() throws IOException {
    Files.writeString(data.resolve("journal"), "not a directory");
    JournalException e = assertThrows(JournalException.class, () -> Journals.open(data, "w1"));
    assertTrue(e.getMessage().startsWith("journal activity/w1 cannot be opened: "), e.getMessage());
  }

  @Test
  void journalActivitiesAppendEachTransitionOnce() throws IOException {
    try (Journals journals = Journals.open(data, "w1")) {
      JournalActivitiesImpl activities = journals.activities();
      JournalEntry accepted = new JournalEntry("act_9", "fp_9", "accepted", 1, "2026-11-30T05:00:00Z",
          Map.of("tool", "create_ticket", "session", "ses_1", "jsonrpc_id", 42));
      activities.append(accepted);
      activities.append(accepted);
      journals.dispatchJournal().dispatched(request(1));
      assertEquals(2, journals.activity().size());
      journals.sessions().append(Map.of("session", "ses_1", "event", "connected"), "ses_1/connected");
      assertEquals(1, journals.sessions().size());
    }
    assertTrue(Files.exists(JournalKeys.privateKeyFile(data)));
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
        Files.getPosixFilePermissions(JournalKeys.privateKeyFile(data))));
    NoteVerifier key = JournalKeys.loadVerifier(data);
    List<JournalVerifier.Result> results = new JournalVerifier(key).verifyDataDir(data, null);
    assertEquals(2, results.size());
    assertTrue(results.stream().allMatch(JournalVerifier.Result::ok));
  }
}
