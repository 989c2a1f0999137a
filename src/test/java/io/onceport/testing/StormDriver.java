package io.onceport.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A storm of concurrent identical {@code tools/call}s over plain HTTP/1.1 sockets, one connection
 * per call, all on one MCP session: every request is written before any answer is read, so the test
 * knows when all of them reached the front end. Answers are read with a bounded timeout.
 */
public final class StormDriver {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What came back for each call, in call order, and how long the storm took from first write to last answer. */
  public record Outcome(List<JsonNode> answers, List<String> failures, Duration elapsed, Duration written,
      Duration firstAnswer, Duration lastAnswer) {
    /** Time from the release of the target (the moment every call was written) to the first and the last answer. */
    public String answered() {
      return "first answer after " + firstAnswer.toMillis() + " ms, last after " + lastAnswer.toMillis() + " ms";
    }
  }

  private final int port;
  private final String token;
  private final String session;

  public StormDriver(int port, String token, String session) {
    this.port = port;
    this.token = token;
    this.session = session;
  }

  /**
   * Opens {@code calls} connections and writes one {@code tools/call} on each; runs {@code
   * whenWritten} once every request was written; then reads every answer.
   */
  public Outcome storm(int calls, String tool, JsonNode arguments, Runnable whenWritten, Duration readTimeout)
      throws IOException, InterruptedException {
    List<Socket> sockets = new ArrayList<>(calls);
    long start = System.nanoTime();
    try {
      for (int i = 0; i < calls; i++) {
        byte[] body = McpClient.callBody(i + 1, tool, arguments).getBytes(StandardCharsets.UTF_8);
        String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
            + "Accept: application/json\r\nAuthorization: Bearer " + token + "\r\nMcp-Session-Id: " + session
            + "\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: " + body.length + "\r\n\r\n";
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setSoTimeout((int) readTimeout.toMillis());
        OutputStream out = s.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        sockets.add(s);
      }
      Duration written = Duration.ofNanos(System.nanoTime() - start);
      whenWritten.run();
      long released = System.nanoTime();
      java.util.concurrent.atomic.AtomicLong first = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
      java.util.concurrent.atomic.AtomicLong last = new java.util.concurrent.atomic.AtomicLong();
      ExecutorService readers = Executors.newFixedThreadPool(32);
      try {
        List<Future<JsonNode>> answers = new ArrayList<>();
        for (Socket s : sockets) {
          answers.add(readers.submit(() -> {
            JsonNode answer = read(s);
            long at = System.nanoTime() - released;
            first.accumulateAndGet(at, Math::min);
            last.accumulateAndGet(at, Math::max);
            return answer;
          }));
        }
        List<JsonNode> ok = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (Future<JsonNode> f : answers) {
          try {
            ok.add(f.get(readTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS));
          } catch (Exception e) {
            ok.add(null);
            failed.add(String.valueOf(e.getCause() == null ? e : e.getCause()));
          }
        }
        return new Outcome(ok, failed, Duration.ofNanos(System.nanoTime() - start), written,
            Duration.ofNanos(first.get() == Long.MAX_VALUE ? 0 : first.get()), Duration.ofNanos(last.get()));
      } finally {
        readers.shutdownNow();
      }
    } finally {
      for (Socket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }
  }

  /** One HTTP/1.1 response with a Content-Length body, as JSON. */
  private static JsonNode read(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed before the response headers: " + head);
      }
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String headers = head.toString(StandardCharsets.US_ASCII);
    if (!headers.startsWith("HTTP/1.1 200")) {
      throw new IOException("not 200: " + headers.lines().findFirst().orElse(""));
    }
    int length = -1;
    for (String line : headers.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    if (length < 0) {
      throw new IOException("no Content-Length: " + headers);
    }
    byte[] body = in.readNBytes(length);
    return JSON.readTree(body);
  }
}
