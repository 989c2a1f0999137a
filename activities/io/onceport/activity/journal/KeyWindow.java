package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A {@link Journal}'s idempotence window: {@link RecentKeys} (a key hash and the line's offset for
 * each of the last {@link JournalOptions#keyWindow()} entries) and a read-only channel that reads a
 * candidate line back and compares its key, so a hash collision never hides a new entry. Not
 * thread-safe: the journal calls it under its write lock.
 */
final class KeyWindow implements AutoCloseable {
  private static final com.fasterxml.jackson.databind.ObjectMapper LINE_READER =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private final String name;
  private final RecentKeys index;
  /** Reads lines back to confirm a key match (separate from the write channel and its opener). */
  private final FileChannel reader;

  /** @param index filled from the segment's last entries on open */
  KeyWindow(String name, RecentKeys index, Path segment) throws IOException {
    this.name = name;
    this.index = index;
    this.reader = FileChannel.open(segment, StandardOpenOption.READ);
  }

  /** Entry at {@code offset} was written under a key with this hash. */
  void add(long keyHash, long offset) {
    index.add(keyHash, offset);
  }

  /** The window's entry under {@code appendKey}, confirmed by reading its line back. */
  Appended find(String appendKey, long keyHash) {
    long[] candidates = index.candidates(keyHash);
    for (int i = candidates.length - 1; i >= 0; i--) {
      com.fasterxml.jackson.databind.JsonNode line = readLine(candidates[i]);
      if (appendKey.equals(line.path("key").asText(null))) {
        return new Appended(line.path("seq").asLong(), line.path("hash").asText(), true);
      }
    }
    return null;
  }

  /** The entry whose line starts at {@code offset} (a line this journal wrote or checked on open). */
  private com.fasterxml.jackson.databind.JsonNode readLine(long offset) {
    try {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(512);
      ByteBuffer buf = ByteBuffer.allocate(1024);
      long pos = offset;
      while (true) {
        buf.clear();
        int n = reader.read(buf, pos);
        if (n < 0) {
          throw new IOException("line at offset " + offset + " ends without a newline");
        }
        byte[] a = buf.array();
        for (int i = 0; i < n; i++) {
          if (a[i] == '\n') {
            out.write(a, 0, i);
            return LINE_READER.readTree(out.toByteArray());
          }
        }
        out.write(a, 0, n);
        pos += n;
      }
    } catch (IOException e) {
      throw new JournalException("journal " + name + " cannot read back the entry at offset " + offset
          + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
