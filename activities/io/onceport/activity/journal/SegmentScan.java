package io.onceport.activity.journal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** One pass over a segment file: checks every complete line in order and stops at the first bad one. */
final class SegmentScan {
  long entries;
  String lastHash = JournalFormat.GENESIS;
  /** Offset just past the last good line. */
  long validEnd;
  long fileLength;
  /** Set when the file ends in bytes without a newline (a torn or truncated last line). */
  boolean tornTail;
  Problem problem;
  final MerkleTree.Accumulator accumulator = new MerkleTree.Accumulator();
  final List<byte[]> leaves;
  /** Root of the first {@code captureRootAt} entries, once the scan got that far. */
  long captureRootAt = -1;
  byte[] capturedRoot;

  private SegmentScan(boolean keepLeaves) {
    this.leaves = keepLeaves ? new ArrayList<>() : null;
  }

  static SegmentScan scan(Path file, boolean keepLeaves, Consumer<JournalFormat.Checked> onEntry)
      throws IOException {
    return scan(file, keepLeaves, onEntry, -1);
  }

  static SegmentScan scan(Path file, boolean keepLeaves, Consumer<JournalFormat.Checked> onEntry,
      long captureRootAt) throws IOException {
    SegmentScan s = new SegmentScan(keepLeaves);
    s.captureRootAt = captureRootAt;
    if (captureRootAt == 0) {
      s.capturedRoot = MerkleTree.emptyRoot();
    }
    if (!Files.exists(file)) {
      return s;
    }
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      ByteArrayOutputStream line = new ByteArrayOutputStream(512);
      long offset = 0;
      long lineStart = 0;
      int b;
      while ((b = in.read()) != -1) {
        offset++;
        if (b != '\n') {
          line.write(b);
          continue;
        }
        byte[] bytes = line.toByteArray();
        line.reset();
        long seq = s.entries + 1;
        try {
          JournalFormat.Checked c = JournalFormat.check(bytes, seq, s.lastHash);
          byte[] leaf = MerkleTree.leafHash(bytes);
          s.accumulator.append(leaf);
          if (s.leaves != null) {
            s.leaves.add(leaf);
          }
          s.entries = seq;
          if (seq == s.captureRootAt) {
            s.capturedRoot = s.accumulator.root();
          }
          s.lastHash = c.hash();
          s.validEnd = offset;
          if (onEntry != null) {
            onEntry.accept(c);
          }
        } catch (JournalFormat.BadEntry e) {
          s.problem = Problem.entry(seq, lineStart, e.getMessage());
          s.fileLength = Files.size(file);
          return s;
        }
        lineStart = offset;
      }
      s.fileLength = offset;
      if (line.size() > 0) {
        s.tornTail = true;
        s.problem = Problem.entry(s.entries + 1, lineStart,
            "incomplete last line without newline (" + line.size() + " bytes; torn write or truncated file)");
      }
    }
    return s;
  }
}
