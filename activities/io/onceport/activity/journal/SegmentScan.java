package io.onceport.activity.journal;

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

  /** Receives each good entry with the offset its line starts at. */
  @FunctionalInterface
  interface EntryListener {
    void entry(JournalFormat.Checked c, long offset);
  }

  private SegmentScan(boolean keepLeaves) {
    this.leaves = keepLeaves ? new ArrayList<>() : null;
  }

  static SegmentScan scan(Path file, boolean keepLeaves, Consumer<JournalFormat.Checked> onEntry)
      throws IOException {
    return scan(file, keepLeaves, onEntry == null ? null : (c, offset) -> onEntry.accept(c), -1);
  }

  static SegmentScan scan(Path file, boolean keepLeaves, EntryListener onEntry,
      long captureRootAt) throws IOException {
    SegmentScan s = new SegmentScan(keepLeaves);
    s.captureRootAt = captureRootAt;
    if (captureRootAt == 0) {
      s.capturedRoot = MerkleTree.emptyRoot();
    }
    if (!Files.exists(file)) {
      return s;
    }
    try (InputStream in = Files.newInputStream(file)) {
      ByteArrayOutputStream line = new ByteArrayOutputStream(512);
      byte[] buf = new byte[1 << 16];
      long offset = 0;
      long lineStart = 0;
      int n;
      while ((n = in.read(buf)) != -1) {
        int from = 0;
        for (int i = 0; i < n; i++) {
          if (buf[i] != '\n') {
            continue;
          }
          line.write(buf, from, i - from);
          from = i + 1;
          long lineEnd = offset + i + 1;
          byte[] bytes = line.toByteArray();
          line.reset();
          if (!s.accept(bytes, lineStart, lineEnd, onEntry)) {
            s.fileLength = Files.size(file);
            return s;
          }
          lineStart = lineEnd;
        }
        line.write(buf, from, n - from);
        offset += n;
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

  private boolean accept(byte[] bytes, long lineStart, long lineEnd, EntryListener onEntry) {
    long seq = entries + 1;
    try {
      JournalFormat.Checked c = JournalFormat.check(bytes, seq, lastHash);
      byte[] leaf = MerkleTree.leafHash(bytes);
      accumulator.append(leaf);
      if (leaves != null) {
        leaves.add(leaf);
      }
      entries = seq;
      if (seq == captureRootAt) {
        capturedRoot = accumulator.root();
      }
      lastHash = c.hash();
      validEnd = lineEnd;
      if (onEntry != null) {
        onEntry.entry(c, lineStart);
      }
      return true;
    } catch (JournalFormat.BadEntry e) {
      problem = Problem.entry(seq, lineStart, e.getMessage());
      return false;
    }
  }
}
