package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.journal.JournalKeys;
import io.onceport.activity.journal.Journals;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(60)
class AuditCommandTest {
  @TempDir Path tmp;
  Path data;
  String out;
  String err;

  int run(String... args) {
    CommandLine cl = OnceportCommand.commandLine();
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    cl.setOut(new PrintWriter(o, true));
    cl.setErr(new PrintWriter(e, true));
    int code = cl.execute(args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  void append(int from, int to) {
    try (Journals j = Journals.open(data, "w1")) {
      for (int i = from; i < to; i++) {
        j.activity().append(Map.of("execution_id", "act_" + i, "transition", "accepted"), "act_" + i + "/accepted/1");
      }
      j.sessions().append(Map.of("session", "ses_" + from), "ses_" + from);
    }
  }

  @BeforeEach
  void journal() {
    data = tmp.resolve("data");
    append(0, 5);
  }

  @Test
  void verifyAcceptsAnUntouchedDataDir() {
    assertEquals(0, run("audit", "verify", "--data", data.toString()), err);
    String[] lines = out.split("\n");
    assertEquals(3, lines.length, out);
    assertTrue(lines[0].matches("ok: activity/w1 5 entries, root [A-Za-z0-9+/]{43}="), lines[0]);
    assertTrue(lines[1].matches("ok: sessions/w1 1 entries, root [A-Za-z0-9+/]{43}="), lines[1]);
    // then what the journal proves of sends and resets (ResetOnTemporalServerTest checks a reset's lines)
    assertEquals("sends: 0 dispatched entries for 0 executions; 0 executions reset (0 sends by reset runs, each under its"
        + " execution's key)", lines[2]);
  }

  @Test
  void verifyNamesTheFirstModifiedEntry() throws IOException {
    Path seg = data.resolve("journal/activity/w1.jsonl");
    List<String> lines = Files.readAllLines(seg);
    long offset = lines.get(0).length() + 1 + lines.get(1).length() + 1;
    Files.writeString(seg, String.join("\n", lines).replace("act_2\"", "act_7\"") + "\n");
    assertEquals(1, run("audit", "verify", "--data", data.toString()));
    assertEquals("onceport: activity/w1: entry seq 3 at offset " + offset
        + ": hash does not match the entry content (entry modified)\n", err);
    assertTrue(out.startsWith("ok: sessions/w1 1 entries"), out);
  }

  @Test
  void verifyOneSegmentWithAKeyFromPubkey() {
    assertEquals(0, run("audit", "pubkey", "--data", data.toString()));
    String key = out.strip();
    assertTrue(key.startsWith(Journals.KEY_NAME + "+"), key);
    assertEquals(0, run("audit", "verify", data.resolve("journal/activity/w1.jsonl").toString(), "--key", key), err);
    assertTrue(out.startsWith("ok: activity/w1 5 entries, root "), out);
    assertEquals(1, run("audit", "verify", data.resolve("journal/activity/w1.jsonl").toString()));
    assertEquals("onceport: JOURNAL needs --key PUBKEY (see onceport audit pubkey)\n", err);
  }

  @Test
  void aSavedCheckpointProvesGrowthAndCatchesRollback() throws IOException {
    assertEquals(0, run("audit", "checkpoint", "--data", data.toString(), "--journal", "activity/w1"), err);
    assertTrue(out.startsWith("onceport/w1/activity\n5\n"), out);
    Path saved = tmp.resolve("witness.note");
    Files.writeString(saved, out);
    append(5, 9);
    assertEquals(0, run("audit", "verify", "--data", data.toString(), "--checkpoint", saved.toString()), err);
    assertTrue(out.contains("ok: activity/w1 9 entries"), out);

    // roll back: keep 3 entries and drop every stored checkpoint
    Path seg = data.resolve("journal/activity/w1.jsonl");
    List<String> lines = Files.readAllLines(seg);
    Files.writeString(seg, String.join("\n", lines.subList(0, 3)) + "\n");
    try (var s = Files.walk(data.resolve("journal/activity/checkpoints"))) {
      s.filter(Files::isRegularFile).forEach(p -> p.toFile().delete());
    }
    assertEquals(0, run("audit", "verify", "--data", data.toString()), "undetectable without a witness");
    assertEquals(1, run("audit", "verify", "--data", data.toString(), "--checkpoint", saved.toString()));
    assertEquals("onceport: activity/w1: entry seq 4 at offset " + Files.size(seg)
        + ": journal ends here but saved checkpoint witness.note signed 5 entries (rolled back)\n", err);
  }

  @Test
  void anExportedBundleVerifiesOnItsOwn() throws IOException {
    Path zip = tmp.resolve("bundle.zip");
    assertEquals(0, run("audit", "export", "--data", data.toString(), "--out", zip.toString()), err);
    Path unpacked = tmp.resolve("unpacked");
    try (InputStream in = Files.newInputStream(zip); ZipInputStream z = new ZipInputStream(in)) {
      ZipEntry e;
      while ((e = z.getNextEntry()) != null) {
        Path p = unpacked.resolve(e.getName());
        Files.createDirectories(p.getParent());
        Files.write(p, z.readAllBytes());
      }
    }
    assertTrue(Files.readString(unpacked.resolve("README.txt"), StandardCharsets.UTF_8)
        .contains("onceport audit verify --data DIR"));
    assertTrue(Files.notExists(JournalKeys.privateKeyFile(unpacked)), "no private key in a bundle");
    assertEquals(0, run("audit", "verify", "--data", unpacked.toString()), err);
    assertTrue(out.contains("ok: activity/w1 5 entries"), out);
  }
}
