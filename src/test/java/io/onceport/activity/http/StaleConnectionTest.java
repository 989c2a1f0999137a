package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.dispatch.DispatchResult;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A target that closes an idle keep-alive connection (as Jetty does after 30 s, Node after 5 s):
 * the read channel answers a GET on the stale pooled connection by sending it once more on a fresh
 * one; a POST is never sent again by the channel, on the read channel or the dispatch channel.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StaleConnectionTest {
  private final HttpChannelTest.RecordingContext context = new HttpChannelTest.RecordingContext();
  private RawTarget target;

  @AfterEach
  void stop() throws IOException {
    if (target != null) {
      target.close();
    }
  }

  @Test
  void aReadOnAPooledConnectionTheTargetClosedIsAnsweredOnAFreshOne() throws Exception {
    target = RawTarget.start(RawTarget.Mode.ANSWER_THEN_CLOSE);
    HttpChannel reads = HttpChannel.forReads();

    assertEquals(200, reads.dispatch(HttpChannelTest.request(spec("GET", "/items/1"), "{}"), context).status());
    target.awaitClosed(1);
    DispatchResult second = reads.dispatch(HttpChannelTest.request(spec("GET", "/items/2"), "{}"), context);

    assertEquals(200, second.status());
    assertEquals("{\"ok\":true}", second.body());
    assertEquals(3, context.beforeSendCalls, "the second read went out on the stale pooled connection first, then once more");
    assertEquals(List.of("connection 1: GET /items/1", "connection 2: GET /items/2"), target.requests(),
        "the target saw each read once: the stale attempt never reached it");
  }

  @Test
  void aPostOnAStaleReadConnectionIsNotSentAgainByTheChannel() throws Exception {
    target = RawTarget.start(RawTarget.Mode.ANSWER_THEN_CLOSE);
    HttpChannel reads = HttpChannel.forReads();

    assertEquals(200, reads.dispatch(HttpChannelTest.request(spec("POST", "/search"), "{}"), context).status());
    target.awaitClosed(1);
    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> reads.dispatch(HttpChannelTest.request(spec("POST", "/search"), "{}"), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType(), failure.getOriginalMessage());
    assertEquals(2, context.beforeSendCalls, "written once on the stale connection, not repeated");
    assertEquals(List.of("connection 1: POST /search"), target.requests());
    assertEquals(1, target.connections());
  }

  @Test
  void aSendNeverTakesAPooledConnectionSoNoStaleOneCanRepeatIt() throws Exception {
    target = RawTarget.start(RawTarget.Mode.ANSWER_THEN_CLOSE);
    HttpChannel sends = new HttpChannel();

    assertEquals(200, sends.dispatch(HttpChannelTest.request(spec("POST", "/v1/releases"), "{}"), context).status());
    target.awaitClosed(1);
    assertEquals(200, sends.dispatch(HttpChannelTest.request(spec("POST", "/v1/releases"), "{}"), context).status());

    assertEquals(2, context.beforeSendCalls);
    assertEquals(List.of("connection 1: POST /v1/releases", "connection 2: POST /v1/releases"), target.requests());
  }

  @Test
  void aSendWhoseConnectionDropsAfterTheTargetReadItIsAnUnknownOutcomeAndSentOnce() throws Exception {
    target = RawTarget.start(RawTarget.Mode.READ_THEN_DROP);

    ApplicationFailure failure = assertThrows(ApplicationFailure.class,
        () -> new HttpChannel().dispatch(HttpChannelTest.request(spec("POST", "/v1/releases"), "{}"), context));

    assertEquals(ErrorTypes.OUTCOME_UNKNOWN, failure.getType(), failure.getOriginalMessage());
    assertEquals(1, context.beforeSendCalls);
    assertEquals(List.of("connection 1: POST /v1/releases"), target.requests());
    assertEquals(1, target.connections());
  }

  @Test
  void aKeepAliveTargetSeesEveryRequestOnceReadsOnOnePooledConnectionSendsEachOnItsOwn() throws Exception {
    target = RawTarget.start(RawTarget.Mode.KEEP_ALIVE);
    HttpChannel reads = HttpChannel.forReads();
    HttpChannel sends = new HttpChannel();

    for (int i = 1; i <= 5; i++) {
      assertEquals(200, reads.dispatch(HttpChannelTest.request(spec("GET", "/items/" + i), "{}"), context).status());
    }
    for (int i = 1; i <= 3; i++) {
      assertEquals(200, sends.dispatch(HttpChannelTest.request(spec("POST", "/v1/releases/" + i), "{}"), context).status());
    }

    assertEquals(8, context.beforeSendCalls);
    assertEquals(List.of(
        "connection 1: GET /items/1", "connection 1: GET /items/2", "connection 1: GET /items/3",
        "connection 1: GET /items/4", "connection 1: GET /items/5",
        "connection 2: POST /v1/releases/1", "connection 3: POST /v1/releases/2", "connection 4: POST /v1/releases/3"),
        target.requests());
  }

  private HttpSpec spec(String method, String path) {
    return new HttpSpec(method, "http://127.0.0.1:" + target.port() + path, method.equals("POST") ? "{}" : null, Map.of(),
        null, null, 5000);
  }

  /**
   * An HTTP/1.1 target on a raw socket that records every request it reads, with the number of the
   * connection it came on. {@code ANSWER_THEN_CLOSE} answers without {@code Connection: close} (so
   * the client pools the connection) and then closes it, as a server does when its idle timeout
   * passes; {@code KEEP_ALIVE} answers every request on the connection; {@code READ_THEN_DROP} reads
   * the request and closes without an answer.
   */
  static final class RawTarget implements AutoCloseable {
    enum Mode { ANSWER_THEN_CLOSE, KEEP_ALIVE, READ_THEN_DROP }

    private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
        + "{\"ok\":true}").getBytes(StandardCharsets.US_ASCII);
    private final ServerSocket server;
    private final Mode mode;
    private final List<String> requests = new ArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Semaphore closed = new Semaphore(0);

    private RawTarget(ServerSocket server, Mode mode) {
      this.server = server;
      this.mode = mode;
    }

    static RawTarget start(Mode mode) throws IOException {
      RawTarget t = new RawTarget(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), mode);
      Thread acceptor = new Thread(t::accept, "raw-target");
      acceptor.setDaemon(true);
      acceptor.start();
      return t;
    }

    int port() {
      return server.getLocalPort();
    }

    int connections() {
      return connections.get();
    }

    List<String> requests() {
      synchronized (requests) {
        return List.copyOf(requests);
      }
    }

    /** Waits until the target has closed {@code n} connections. */
    void awaitClosed(int n) throws InterruptedException {
      assertTrue(closed.tryAcquire(n, 10, TimeUnit.SECONDS), "the target did not close the connection");
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          int number = connections.incrementAndGet();
          Thread t = new Thread(() -> serve(socket, number), "raw-target-" + number);
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    private void serve(Socket socket, int number) {
      try (socket) {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        while (true) {
          String requestLine = line(in);
          if (requestLine == null || requestLine.isEmpty()) {
            return;
          }
          int length = 0;
          for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
            if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(header.substring("content-length:".length()).trim());
            }
          }
          in.readNBytes(length);
          String[] parts = requestLine.split(" ");
          synchronized (requests) {
            requests.add("connection " + number + ": " + parts[0] + " " + parts[1]);
          }
          if (mode == Mode.READ_THEN_DROP) {
            return;
          }
          out.write(ANSWER);
          out.flush();
          if (mode == Mode.ANSWER_THEN_CLOSE) {
            return;
          }
        }
      } catch (IOException e) {
        // the client went away
      } finally {
        closed.release();
      }
    }

    /** One CRLF-terminated line, or null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
      ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      for (int b = in.read(); b != -1; b = in.read()) {
        if (b == '\n') {
          String s = buffer.toString(StandardCharsets.US_ASCII);
          return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
        }
        buffer.write(b);
      }
      return buffer.size() == 0 ? null : buffer.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
