package io.onceport.activity.mcp;

import static io.onceport.activity.mcp.McpUpstream.MESSAGE_CAP;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import okio.BufferedSource;

/**
 * Reads from an HTTP upstream's answer that stop at {@link McpUpstream#MESSAGE_CAP} before
 * buffering more: event-stream lines, JSON bodies, and the quoted start of an error page. A larger
 * message is a {@link #tooLarge} failure (outcome unknown, not resumed); see {@link HttpUpstream}.
 */
final class CappedReads {
  private CappedReads() {}

  /**
   * One line of an event stream (LF or CRLF), read only up to {@code limit} bytes: Okio's {@code
   * indexOf} with an end loads at most that much before giving up, where {@code readUtf8Line} held a
   * line of any length (one of 1.4 GB threw OutOfMemoryError). Null at the end of the stream.
   */
  static String line(BufferedSource source, long limit, String what) throws IOException {
    long end = source.indexOf((byte) '\n', 0, limit + 1);
    if (end < 0) {
      if (source.getBuffer().size() > limit) {
        throw tooLarge(what, "a line of the response stream");
      }
      return source.exhausted() ? null : source.readUtf8(); // a last line without LF (within the limit)
    }
    String line = source.readUtf8(end);
    source.skip(1);
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }

  /** The whole body, if it is at most {@link #MESSAGE_CAP} bytes; a larger one is not read on. */
  static String whole(BufferedSource source, String what) throws IOException {
    if (source.request(MESSAGE_CAP + 1L)) {
      throw tooLarge(what, "the answer");
    }
    return source.readUtf8();
  }

  /** At most {@code cap} bytes of a body that is only quoted (an error page). */
  static String prefix(BufferedSource source, long cap) throws IOException {
    source.request(cap);
    return source.getBuffer().readString(Math.min(source.getBuffer().size(), cap), StandardCharsets.UTF_8);
  }

  /**
   * A message over {@link #MESSAGE_CAP}: the request was sent and answered, but the answer is not
   * read, so whether the server acted is not known from it.
   */
  static McpFailure tooLarge(String what, String which) {
    String message = what + ": " + which + " is too large (over " + MESSAGE_CAP + " bytes); it was not read";
    return new McpFailure(McpFailure.Stage.UNKNOWN, message, new TooLarge(message));
  }

  /** The cause of a too-large failure: resuming the stream would replay the same message, so it is not resumed. */
  private static final class TooLarge extends IOException {
    TooLarge(String message) {
      super(message);
    }
  }

  /** Whether {@code failure} is a {@link #tooLarge} one. */
  static boolean isTooLarge(McpFailure failure) {
    return failure.getCause() instanceof TooLarge;
  }
}
