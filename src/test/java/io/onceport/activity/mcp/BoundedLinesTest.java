package io.onceport.activity.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BoundedLinesTest {
  private static BoundedLines lines(String text, int cap) {
    return new BoundedLines(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), cap);
  }

  @Test
  void linesEndAtLfWithoutTheirCrAndALastLineWithoutLfCounts() throws Exception {
    BoundedLines in = lines("a\r\nbé\n\nlast", 16);
    assertEquals(new BoundedLines.Line("a", 2, false), in.next());
    assertEquals(new BoundedLines.Line("bé", 3, false), in.next());
    assertEquals(new BoundedLines.Line("", 0, false), in.next());
    assertEquals(new BoundedLines.Line("last", 4, false), in.next());
    assertNull(in.next());
  }

  /** A line of 64 MiB from a stream that never holds it: only its first bytes are kept, the next line is whole. */
  @Test
  void aLineOverTheCapKeepsItsPrefixAndIsSkippedToItsEnd() throws Exception {
    long huge = 64L * 1024 * 1024;
    String head = "{\"jsonrpc\":\"2.0\",\"id\":\"onceport-7\",\"result\":{\"text\":\"";
    InputStream stream = new InputStream() {
      long position;

      @Override
      public int read() {
        if (position < head.length()) {
          return head.charAt((int) position++);
        }
        if (position < huge) {
          position++;
          return 'x';
        }
        if (position == huge) {
          position++;
          return '\n';
        }
        byte[] next = "{\"id\":\"onceport-8\"}\n".getBytes(StandardCharsets.US_ASCII);
        int i = (int) (position++ - huge - 1);
        return i < next.length ? next[i] : -1;
      }
    };
    BoundedLines in = new BoundedLines(stream, 1024 * 1024);
    BoundedLines.Line over = in.next();
    assertEquals(true, over.overCap());
    assertEquals(huge, over.bytes());
    assertEquals(BoundedLines.PREFIX, over.text().length());
    assertEquals(new JsonRpcHead("onceport-7", null), JsonRpcHead.of(over.text()));
    assertEquals(new BoundedLines.Line("{\"id\":\"onceport-8\"}", 19, false), in.next());
    assertNull(in.next());
  }

  @Test
  void theHeadOfAMessageIsReadFromItsFirstFieldsOnly() {
    assertEquals(new JsonRpcHead(null, "notifications/message"),
        JsonRpcHead.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"xxxx"));
    assertEquals(new JsonRpcHead("5", null), JsonRpcHead.of("{\"id\":5,\"result\":{\"a\":[1,2"));
    assertEquals(new JsonRpcHead(null, null), JsonRpcHead.of("{\"result\":{\"content\":\"xxx"));
    assertEquals(new JsonRpcHead(null, null), JsonRpcHead.of("not json"));
  }
}
