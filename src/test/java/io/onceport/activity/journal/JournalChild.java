package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A separate JVM for crash and multi-process tests. Args: mode dataDir writerId keyLine. */
public final class JournalChild {
  private JournalChild() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Path journalDir = Path.of(args[1]).resolve("journal/activity");
    NoteSigner signer = NoteSigner.parse(args[3]);
    JournalOptions options = JournalOptions.newBuilder(journalDir, args[2], signer)
        .setCheckpointEvery(50).setCheckpointInterval(Duration.ofMillis(200)).build();
    try (Journal j = Journal.open(options)) {
      if (mode.equals("claim")) {
        claim(j, journalDir, Integer.parseInt(args[4]));
        return;
      }
      if (mode.equals("hold")) {
        System.out.println("holding");
        System.out.flush();
        Thread.sleep(60_000);
        return;
      }
      long start = j.size();
      if (mode.equals("append-async")) {
        for (long i = start; ; i++) {
          // Reported once written, not once forced: a kill -9 must not lose it (the OS has the page).
          Appended a = j.appendAsync(Map.of("transition", "accepted", "i", i, "pad", "y".repeat((int) (i % 200))),
              "child/" + i).appended();
          System.out.println("written " + a.seq() + " child/" + i);
          System.out.flush();
        }
      }
      for (long i = start; ; i++) {
        Appended a = j.append(Map.of("transition", "dispatched", "i", i, "pad", "x".repeat((int) (i % 300))),
            "child/" + i);
        System.out.println("acked " + a.seq() + " child/" + i);
        System.out.flush();
      }
    }
  }

  /**
   * Sends {@code act_race0..n-1} (attempt 1) through a send ledger of its own once "go" arrives on
   * stdin, printing "sent I" or "refused I" for each: processes racing for the same keys.
   */
  private static void claim(Journal j, Path journalDir, int n) throws Exception {
    try (SendLedger ledger = SendLedger.open(journalDir)) {
      JournalDispatchJournal hook = new JournalDispatchJournal(j, ledger);
      System.out.println("ready");
      System.out.flush();
      new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8)).readLine();
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < n; i++) {
        try {
          hook.dispatched(new io.onceport.workflow.dispatch.DispatchRequest("act_race" + i, "fp_1",
              JournalDispatchJournalTest.request(1).contract(), "{}", 1));
          out.append("sent ").append(i).append('\n');
        } catch (io.temporal.failure.ApplicationFailure refused) {
          out.append("refused ").append(i).append('\n');
        }
      }
      System.out.print(out);
      System.out.println("done");
      System.out.flush();
    }
  }

  /** Starts this class in a new JVM with the test class path. */
  static Process start(String mode, Path dataDir, String writerId, NoteSigner signer, String... more) throws IOException {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-cp", cp, JournalChild.class.getName(), mode, dataDir.toString(), writerId,
        signer.encode()));
    cmd.addAll(List.of(more));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

}
