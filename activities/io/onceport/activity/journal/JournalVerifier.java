package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Offline verification of journal segments with nothing but the files and the verifier key: every
 * line canonical and self-hashing, sequence numbers continuous, each {@code prev} the hash of the
 * entry before, no incomplete tail, every stored checkpoint signed by the key and matching the
 * root of the prefix it covers; and, given a checkpoint saved earlier (by a witness), a consistency
 * proof that the journal only grew since. Reports the first problem only: everything after a bad
 * entry is unanchored.
 *
 * <p>Limits: deleting entries after the latest checkpoint the verifier knows of is detectable only
 * by a later checkpoint held outside the data dir, which is why checkpoints should be witnessed.
 */
public final class JournalVerifier {
  /** The outcome for one segment. {@code root} is the RFC 6962 root of all good entries. */
  public record Result(String journal, String origin, long entries, byte[] root, int checkpoints,
      Problem problem) {
    public boolean ok() {
      return problem == null;
    }

    public String rootBase64() {
      return Base64.getEncoder().encodeToString(root);
    }

    /** {@code ok: <journal> <n> entries, root <b64>} or {@code <journal>: <problem>}. */
    public String summary() {
      return ok()
          ? "ok: " + journal + " " + entries + " entries, root " + rootBase64()
          : journal + ": " + problem.message();
    }
  }

  private final NoteVerifier key;

  public JournalVerifier(NoteVerifier key) {
    this.key = Objects.requireNonNull(key, "key == null");
  }

  /** Every segment under {@code <data>/journal/<journal>/*.jsonl}, sorted by name. */
  public static List<Path> segments(Path dataDir) throws IOException {
    Path root = dataDir.resolve("journal");
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root, 2)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".jsonl") && Files.isRegularFile(p))
          .sorted().toList();
    }
  }

  /**
   * Verifies every segment of a data dir; a saved checkpoint applies to the segment with its
   * origin (a checkpoint matching no segment is itself a problem: the journal disappeared).
   */
  public List<Result> verifyDataDir(Path dataDir, Path savedCheckpoint) throws IOException {
    List<Result> results = new ArrayList<>();
    String savedOrigin = null;
    if (savedCheckpoint != null) {
      savedOrigin = originOf(savedCheckpoint);
    }
    boolean matched = false;
    for (Path segment : segments(dataDir)) {
      boolean mine = savedOrigin != null && savedOrigin.equals(origin(segment));
      matched |= mine;
      results.add(verify(segment, mine ? savedCheckpoint : null));
    }
    if (savedOrigin != null && !matched) {
      results.add(new Result(savedOrigin, savedOrigin, 0, MerkleTree.emptyRoot(), 0,
          Problem.checkpoint(savedCheckpoint.getFileName().toString(),
              "no journal segment with origin " + savedOrigin + " (journal removed or renamed)")));
    }
    return results;
  }

  /** Verifies one segment, its stored checkpoints, and optionally a previously saved checkpoint. */
  public Result verify(Path segment, Path savedCheckpoint) throws IOException {
    String journal = journalName(segment);
    String origin = origin(segment);
    SegmentScan scan = SegmentScan.scan(segment, true, null);
    for (int retry = 0; retry < 3 && scan.tornTail; retry++) {
      // a live writer may be mid-append: if the file grows, read again rather than report it torn
      pause();
      if (Files.size(segment) == scan.fileLength) {
        break;
      }
      scan = SegmentScan.scan(segment, true, null);
    }
    byte[] root = scan.accumulator.root();
    if (scan.problem != null) {
      return new Result(journal, origin, scan.entries, root, 0, scan.problem);
    }
    Path dir = CheckpointStore.dir(segment.getParent(), writerId(segment));
    List<Path> stored = CheckpointStore.list(dir);
    Problem p = checkStored(stored, origin, scan);
    if (p == null && savedCheckpoint != null) {
      p = checkSaved(savedCheckpoint, origin, scan, root);
    }
    return new Result(journal, origin, scan.entries, root, stored.size(), p);
  }

  private Problem checkStored(List<Path> files, String origin, SegmentScan scan) throws IOException {
    List<Checkpoint> cps = new ArrayList<>();
    for (Path f : files) {
      String name = f.getFileName().toString();
      Checkpoint cp;
      try {
        cp = Checkpoint.parse(key.open(Files.readString(f, StandardCharsets.UTF_8)));
      } catch (RuntimeException e) {
        return Problem.checkpoint(name, "bad signature or format: " + e.getMessage());
      }
      if (!cp.origin().equals(origin)) {
        return Problem.checkpoint(name, "origin " + cp.origin() + " is not " + origin);
      }
      if (!name.equals(CheckpointStore.fileName(cp.size()))) {
        return Problem.checkpoint(name, "signs tree size " + cp.size() + ", not the size in its name");
      }
      if (cp.size() > scan.entries) {
        return Problem.entry(scan.entries + 1, scan.fileLength, "journal ends here but checkpoint "
            + name + " signed " + cp.size() + " entries (truncated or rolled back)");
      }
      cps.add(cp);
    }
    MerkleTree.Accumulator acc = new MerkleTree.Accumulator();
    int next = 0;
    for (int i = 0; i <= scan.leaves.size() && next < cps.size(); i++) {
      while (next < cps.size() && cps.get(next).size() == i) {
        if (!Arrays.equals(acc.root(), cps.get(next).root())) {
          return Problem.checkpoint(files.get(next).getFileName().toString(), "root of the first "
              + i + " entries does not match the signed root (journal rewritten: fork)");
        }
        next++;
      }
      if (i < scan.leaves.size()) {
        acc.append(scan.leaves.get(i));
      }
    }
    return null;
  }

  private Problem checkSaved(Path file, String origin, SegmentScan scan, byte[] root)
      throws IOException {
    String name = file.getFileName().toString();
    Checkpoint cp;
    try {
      cp = Checkpoint.parse(key.open(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (RuntimeException e) {
      return Problem.checkpoint(name, "bad signature or format: " + e.getMessage());
    }
    if (!cp.origin().equals(origin)) {
      return Problem.checkpoint(name, "origin " + cp.origin() + " is not " + origin);
    }
    if (cp.size() > scan.entries) {
      return Problem.entry(scan.entries + 1, scan.fileLength, "journal ends here but saved checkpoint "
          + name + " signed " + cp.size() + " entries (rolled back)");
    }
    int m = Math.toIntExact(cp.size());
    int n = Math.toIntExact(scan.entries);
    List<byte[]> proof = MerkleTree.consistencyProof(scan.leaves, m, n);
    if (!MerkleTree.verifyConsistency(m, n, proof, cp.root(), root)) {
      return Problem.checkpoint(name, "no consistency proof from size " + m + " to " + n
          + ": the first " + m + " entries were rewritten (fork)");
    }
    return null;
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String journalName(Path segment) {
    return segment.toAbsolutePath().getParent().getFileName() + "/" + writerId(segment);
  }

  static String writerId(Path segment) {
    String f = segment.getFileName().toString();
    return f.endsWith(".jsonl") ? f.substring(0, f.length() - ".jsonl".length()) : f;
  }

  static String origin(Path segment) {
    return JournalOptions.origin(writerId(segment),
        segment.toAbsolutePath().getParent().getFileName().toString());
  }

  private String originOf(Path checkpointFile) throws IOException {
    String note = Files.readString(checkpointFile, StandardCharsets.UTF_8);
    int nl = note.indexOf('\n');
    return nl < 0 ? note : note.substring(0, nl);
  }
}
