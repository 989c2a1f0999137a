package io.onceport.activity.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Newline-delimited lines from a stream an upstream writes, each read only up to a cap: a line
 * longer than the cap is never held whole. {@code BufferedReader.readLine} buffers a line until its
 * end, however long: one 1.4 GB line from a hostile stdio server threw OutOfMemoryError in the
 * worker (and on the embedded engine killed its timer thread). Here an over-cap line keeps its first
 * {@link #PREFIX} bytes (enough to read a JSON-RPC id that comes first) and the rest is read and
 * dropped, so memory per line is bounded by the cap whatever the server writes.
 *
 * <p>Lines end at LF; a CR before it is removed. Not thread-safe: one reader thread per stream.
 */
final class BoundedLines {
  /** Bytes of an over-cap line kept for diagnosis (its id, its method). */
  static final int PREFIX = 64 * 1024;

  /** A line: its text (complete, or the kept prefix when over the cap) and its length in bytes. */
  record Line(String text, long bytes, boolean overCap) {}

  private final InputStream in;
  private final int cap;
  private final byte[] buffer = new byte[8192];
  private int position;
  private int limit;
  private byte[] line = new byte[256];
  private int length;

  /** @param cap the longest line (in bytes, without its end) that is returned whole */
  BoundedLines(InputStream in, int cap) {
    this.in = in;
    this.cap = cap;
  }

  /** The next line, or null at the end of the stream (a last line without LF is returned first). */
  Line next() throws IOException {
    length = 0;
    long total = 0;
    boolean over = false;
    while (true) {
      if (position == limit) {
        limit = in.read(buffer);
        position = 0;
        if (limit <= 0) {
          limit = 0;
          return total == 0 && !over ? null : finish(total, over);
        }
      }
      int start = position;
      while (position < limit && buffer[position] != '\n') {
        position++;
      }
      int n = position - start;
      total += n;
      if (!over && length + n > cap) {
        over = true;
      }
      keep(start, n, over);
      if (position < limit) {
        position++; // the LF
        return finish(total, over);
      }
    }
  }

  private void keep(int start, int n, boolean over) {
    int room = (over ? PREFIX : cap) - length;
    int take = Math.max(0, Math.min(n, room));
    if (take == 0) {
      return;
    }
    if (length + take > line.length) {
      line = Arrays.copyOf(line, Math.max(length + take, Math.min(line.length * 2, cap)));
    }
    System.arraycopy(buffer, start, line, length, take);
    length += take;
  }

  private Line finish(long total, boolean over) {
    int end = over ? Math.min(length, PREFIX) : length;
    if (!over && end > 0 && line[end - 1] == '\r') {
      end--;
    }
    String text = new String(line, 0, end, StandardCharsets.UTF_8);
    if (line.length > PREFIX * 4) {
      line = new byte[256]; // a long line's buffer is not kept for the next, short ones
    }
    return new Line(text, total, over);
  }
}
