package io.onceport.app.cli;

import io.onceport.activity.journal.Journal;
import io.onceport.activity.journal.JournalException;
import io.onceport.activity.journal.JournalKeys;
import io.onceport.activity.journal.JournalOptions;
import io.onceport.activity.journal.JournalReader;
import io.onceport.activity.journal.JournalVerifier;
import io.onceport.activity.journal.NoteSigner;
import io.onceport.activity.journal.NoteVerifier;
import io.onceport.activity.journal.Journals;
import io.onceport.app.investigate.ResetReport;
import io.onceport.shared.text.InertText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code onceport audit}: offline verification, keys, checkpoints and bundles of the journals. */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = "Verify the tamper-evident journals offline; print keys and checkpoints; export a bundle.",
    subcommands = {
      AuditCommand.Verify.class,
      AuditCommand.Pubkey.class,
      AuditCommand.CheckpointCmd.class,
      AuditCommand.Export.class,
      AuditCommand.Bench.class
    })
public final class AuditCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static NoteVerifier key(String keyOrFile) {
    try {
      Path p = Path.of(keyOrFile);
      String text = Files.isRegularFile(p) ? Files.readString(p, StandardCharsets.UTF_8) : keyOrFile;
      return NoteVerifier.parse(text);
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException("--key: " + e.getMessage());
    }
  }

  static NoteVerifier dataKey(Path data) {
    try {
      return JournalKeys.loadVerifier(data);
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException("no journal key: " + e.getMessage());
    }
  }

  @Command(name = "verify", mixinStandardHelpOptions = true,
      description = {"Checks hash chain, sequence, canonical form and checkpoint signatures offline.",
          "With --checkpoint, proves the journal only grew since that checkpoint (detects rollback and fork).",
          "Exit 0 with 'ok: <journal> <n> entries, root <b64>' per journal; 1 naming the first bad entry.",
          "With --data, then the sends the activity journal proves and every execution a reset ran again:",
          "'sends: …' and one 'reset: <execution>: …' line each (the runs and what each sent)."})
  static final class Verify implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin DataOptions dataOptions;

    @Parameters(arity = "0..1", paramLabel = "JOURNAL", description = "one segment file (<dir>/<writer>.jsonl); needs --key")
    Path journal;

    @Option(names = "--key", paramLabel = "PUBKEY", description = "verifier key (name+id+key) or a file holding it")
    String key;

    @Option(names = "--checkpoint", paramLabel = "FILE", description = "a checkpoint saved earlier (by a witness)")
    Path checkpoint;

    @Override
    public Integer call() throws IOException {
      if (checkpoint != null && !Files.isRegularFile(checkpoint)) {
        throw new CliException("no such checkpoint file: " + checkpoint);
      }
      List<JournalVerifier.Result> results;
      boolean dataGiven = spec.commandLine().getParseResult().hasMatchedOption("--data");
      if (journal != null) {
        if (dataGiven) {
          throw new CliException("give either --data DIR or JOURNAL --key PUBKEY, not both");
        }
        if (key == null) {
          throw new CliException("JOURNAL needs --key PUBKEY (see onceport audit pubkey)");
        }
        if (!Files.isRegularFile(journal)) {
          throw new CliException("no such journal: " + journal);
        }
        results = List.of(new JournalVerifier(key(key)).verify(journal, checkpoint));
      } else {
        Path dir = dataOptions.data();
        NoteVerifier verifier = key == null ? dataKey(dir) : key(key);
        results = new JournalVerifier(verifier).verifyDataDir(dir, checkpoint);
        if (results.isEmpty()) {
          throw new CliException("no journals in " + dir.resolve("journal"));
        }
      }
      int bad = 0;
      for (JournalVerifier.Result r : results) {
        if (r.ok()) {
          spec.commandLine().getOut().println(InertText.of(r.summary()));
        } else {
          bad++;
          spec.commandLine().getErr().println("onceport: " + InertText.of(r.summary()));
        }
      }
      if (journal == null) {
        // After the chains: the sends the activity journal proves, and the resets it tells.
        ResetReport.summary(JournalReader.read(dataOptions.data(), Journals.ACTIVITY).records())
            .forEach(line -> spec.commandLine().getOut().println(InertText.of(line)));
      }
      spec.commandLine().getOut().flush();
      spec.commandLine().getErr().flush();
      return bad == 0 ? 0 : 1;
    }
  }

  @Command(name = "pubkey", mixinStandardHelpOptions = true,
      description = "Prints the journal verifier key (C2SP signed-note format: name+id+key).")
  static final class Pubkey implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin DataOptions dataOptions;

    @Override
    public void run() {
      Path data = dataOptions.data();
      spec.commandLine().getOut().println(dataKey(data));
    }
  }

  @Command(name = "checkpoint", mixinStandardHelpOptions = true,
      description = {"Prints the current signed checkpoint of each journal (C2SP tlog-checkpoint signed note).",
          "A journal no running process holds is checkpointed at its current size first;",
          "for a held one the latest stored checkpoint is printed. Save the output somewhere",
          "the gateway cannot rewrite, then pass it to 'audit verify --checkpoint'."})
  static final class CheckpointCmd implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin DataOptions dataOptions;

    @Option(names = "--journal", paramLabel = "NAME", description = "only this journal (e.g. activity/worker-1); prints the bare note")
    String only;

    @Override
    public void run() {
      Path data = dataOptions.data();
      List<Path> segments;
      try {
        segments = JournalVerifier.segments(data);
      } catch (IOException e) {
        throw new CliException("cannot list journals in " + data + ": " + e.getMessage());
      }
      boolean found = false;
      for (Path seg : segments) {
        String journalDir = seg.getParent().getFileName().toString();
        String writer = seg.getFileName().toString().replaceFirst("\\.jsonl$", "");
        String name = journalDir + "/" + writer;
        if (only != null && !only.equals(name)) {
          continue;
        }
        found = true;
        String note = currentNote(seg.getParent(), writer, name);
        if (only == null) {
          spec.commandLine().getOut().println("# " + name);
        }
        spec.commandLine().getOut().print(note);
      }
      if (!found) {
        throw new CliException(only == null ? "no journals in " + data.resolve("journal") : "no journal " + only);
      }
      spec.commandLine().getOut().flush();
    }

    private String currentNote(Path journalDir, String writer, String name) {
      NoteSigner signer;
      try {
        signer = NoteSigner.parse(Files.readString(JournalKeys.privateKeyFile(dataOptions.data())));
      } catch (IOException | IllegalArgumentException e) {
        return latestStored(journalDir, writer, name);
      }
      try (Journal j = Journal.open(JournalOptions.newBuilder(journalDir, writer, signer)
          .setCheckpointInterval(Duration.ZERO).setCheckpointEvery(0).build())) {
        return j.checkpoint();
      } catch (JournalException e) {
        if (e.getMessage().contains("held by another writer")) {
          return latestStored(journalDir, writer, name);
        }
        throw new CliException(e.getMessage());
      }
    }

    private String latestStored(Path journalDir, String writer, String name) {
      Path dir = journalDir.resolve("checkpoints").resolve(writer);
      try (Stream<Path> s = Files.isDirectory(dir) ? Files.list(dir) : Stream.empty()) {
        Path latest = s.filter(p -> p.getFileName().toString().endsWith(".note"))
            .max(Comparator.comparing(p -> p.getFileName().toString()))
            .orElseThrow(() -> new CliException("journal " + name + " has no checkpoint yet"));
        return Files.readString(latest, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new CliException("cannot read checkpoints of " + name + ": " + e.getMessage());
      }
    }
  }

  @Command(name = "export", mixinStandardHelpOptions = true,
      description = "Writes a portable zip bundle: journal segments, checkpoints, the verifier key and a README.")
  static final class Export implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin DataOptions dataOptions;

    @Option(names = "--out", paramLabel = "FILE", required = true, description = "the zip file to write")
    Path out;

    @Override
    public void run() {
      Path data = dataOptions.data();
      NoteVerifier key = dataKey(data);
      try {
        List<Path> segments = JournalVerifier.segments(data);
        if (segments.isEmpty()) {
          throw new CliException("no journals in " + data.resolve("journal"));
        }
        Path tmp = out.toAbsolutePath().resolveSibling(out.getFileName() + ".tmp");
        int files = 0;
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(tmp))) {
          put(zip, "README.txt", readme(key).getBytes(StandardCharsets.UTF_8));
          put(zip, "keys/" + JournalKeys.PUBLIC_FILE, (key + "\n").getBytes(StandardCharsets.UTF_8));
          for (Path seg : segments) {
            // checkpoints first, then the segment: every exported checkpoint is covered by it
            Path rel = data.resolve("journal").relativize(seg);
            String writer = seg.getFileName().toString().replaceFirst("\\.jsonl$", "");
            Path cps = seg.getParent().resolve("checkpoints").resolve(writer);
            if (Files.isDirectory(cps)) {
              try (Stream<Path> s = Files.list(cps)) {
                for (Path cp : s.filter(p -> p.getFileName().toString().endsWith(".note")).sorted().toList()) {
                  put(zip, "journal/" + data.resolve("journal").relativize(cp).toString().replace('\\', '/'),
                      Files.readAllBytes(cp));
                  files++;
                }
              }
            }
            byte[] bytes = Files.readAllBytes(seg);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] != '\n') {
              end--; // leave out a line being written right now
            }
            put(zip, "journal/" + rel.toString().replace('\\', '/'), java.util.Arrays.copyOf(bytes, end));
            files++;
          }
        }
        Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        spec.commandLine().getOut().println("wrote " + out + ": " + segments.size() + " journals, "
            + files + " files; verify with: onceport audit verify --data <unzipped dir>");
      } catch (IOException e) {
        throw new CliException("cannot export to " + out + ": " + e.getMessage());
      }
    }

    static String readme(NoteVerifier key) {
      return "Onceport journal bundle, exported " + Instant.now() + ".\n\n"
          + "Verify offline (no Temporal, no vault needed):\n"
          + "  unzip bundle.zip -d DIR && onceport audit verify --data DIR\n"
          + "or one segment: onceport audit verify DIR/journal/activity/<writer>.jsonl --key '" + key + "'\n\n"
          + "keys/journal-ed25519.pub holds the verifier key. Compare it with the key you obtained\n"
          + "independently (onceport audit pubkey on the gateway host): a bundle cannot vouch for its\n"
          + "own key. Pass a checkpoint you saved earlier with --checkpoint FILE to prove the journal\n"
          + "only grew since.\n";
    }

    private static void put(ZipOutputStream zip, String name, byte[] bytes) throws IOException {
      zip.putNextEntry(new ZipEntry(name));
      zip.write(bytes);
      zip.closeEntry();
    }
  }

  @Command(name = "bench", hidden = true, mixinStandardHelpOptions = true,
      description = "Measures append throughput (fsynced, fsynced asynchronously, without fsync) and verify speed (not a test).")
  static final class Bench implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--entries", defaultValue = "20000", description = "entries per run (default 20000)")
    int entries;

    @Option(names = "--threads", defaultValue = "16", description = "concurrent appenders (default 16)")
    int threads;

    @Option(names = "--dir", defaultValue = ".", description = "where to create the scratch journal (same file system as the data dir)")
    Path dir;

    @Override
    public Integer call() throws Exception {
      Path scratch = Files.createTempDirectory(dir.toAbsolutePath(), "onceport-bench-");
      try {
        NoteSigner signer = NoteSigner.generate("onceport-bench");
        var out = spec.commandLine().getOut();
        out.printf("onceport audit bench: %d entries per run, scratch dir %s%n", entries, scratch);
        double fsync1 = run(scratch.resolve("f1/activity"), signer, true, false, 1, Math.min(entries, 2000), out);
        double fsyncN = run(scratch.resolve("fn/activity"), signer, true, false, threads, entries, out);
        double async = run(scratch.resolve("fa/activity"), signer, true, true, threads, entries, out);
        double noSync = run(scratch.resolve("nf/activity"), signer, false, false, threads, entries, out);
        out.printf("ratio no-fsync / fsync (%d threads): %.1fx; group commit gain %d threads / 1 thread: %.1fx;"
            + " asynchronous / synchronous (%d threads): %.1fx%n",
            threads, noSync / fsyncN, threads, fsyncN / fsync1, threads, async / fsyncN);
        Path seg = scratch.resolve("fn/activity/bench.jsonl");
        JournalVerifier.Result r = null;
        for (String pass : List.of("first pass", "second pass")) {
          long t0 = System.nanoTime();
          r = new JournalVerifier(signer.verifier()).verify(seg, null);
          double secs = (System.nanoTime() - t0) / 1e9;
          out.printf("verify (%s): %d entries in %.2f s = %.0f entries/s (%s)%n", pass, r.entries(), secs,
              r.entries() / secs, r.ok() ? "ok" : r.summary());
        }
        out.flush();
        return r.ok() ? 0 : 1;
      } finally {
        try (Stream<Path> s = Files.walk(scratch)) {
          for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    }

    /**
     * {@code n} entries from {@code threads} writers. Synchronous: each append returns once durable.
     * Asynchronous: writers do not wait per entry ({@code appendAsync}); the run ends when the last
     * entry is durable, so the rate is fsynced entries per second either way.
     */
    private static double run(Path journalDir, NoteSigner signer, boolean fsync, boolean async, int threads, int n,
        java.io.PrintWriter out) throws Exception {
      try (Journal j = Journal.open(JournalOptions.newBuilder(journalDir, "bench", signer)
          .setFsync(fsync).setCheckpointInterval(Duration.ofSeconds(10)).build())) {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          fs.add(pool.submit(() -> {
            int i;
            java.util.concurrent.CompletableFuture<?> last = null;
            while ((i = next.getAndIncrement()) < n) {
              Map<String, Object> entry = Map.of("execution_id", "act_" + i, "fingerprint", "fp_" + Integer.toHexString(i * 31),
                  "transition", "dispatched", "attempt", 1, "at", "2026-11-30T05:00:00Z",
                  "detail", Map.of("tool", "create_ticket", "session", "ses_" + (i % 7)));
              if (async) {
                last = j.appendAsync(entry, "act_" + i + "/dispatched/1").durable();
              } else {
                j.append(entry, "act_" + i + "/dispatched/1");
              }
            }
            if (last != null) {
              last.get(); // durable: and with it every entry this writer wrote before
            }
            return null;
          }));
        }
        for (Future<?> f : fs) {
          f.get();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        double rate = n / secs;
        out.printf("append %-16s %2d threads: %d entries in %.2f s = %.0f entries/s (%d fsyncs)%n",
            !fsync ? "no fsync," : async ? "fsync, async," : "fsync,", threads, n, secs, rate, j.fsyncCount());
        return rate;
      }
    }
  }

}
