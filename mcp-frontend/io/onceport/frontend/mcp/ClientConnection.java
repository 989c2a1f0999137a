package io.onceport.frontend.mcp;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;

/**
 * Whether the client of the current request is still there, asked just before a final result is
 * written. Jetty does not read from an HTTP/1.1 connection while a handler runs, so a client that
 * closed its socket (FIN) is only noticed by reading: we do one non-blocking read on the
 * connection's end point. {@code -1} (end of stream) or an I/O error (reset) means the client is
 * gone; {@code 0} means nothing arrived and the connection is open.
 *
 * <p>Limits: a client that pipelines its next request on the same connection would have its first
 * byte consumed by the probe (MCP clients do not pipeline; we log and treat it as present). A
 * client that closes after the probe but before the write completes looks delivered: the window is
 * the time of one socket write. A client that half-closes (shuts its output but keeps reading) is
 * reported not delivered: that errs toward a retry attaching, the safe side.
 */
final class ClientConnection {
  private ClientConnection() {}

  /**
   * {@link System#nanoTime()} when the request reached the server (Jetty's arrival time of its
   * headers), falling back to now: a call's arrival, not the moment a thread got to it, decides
   * which run of its intent it belongs to.
   */
  static long receivedNanos(HttpServletRequest request) {
    try {
      ServletContextRequest core = ServletContextRequest.getServletContextRequest(request);
      long begin = core.getBeginNanoTime();
      long now = System.nanoTime();
      // Sanity: a begin time in the future or hours ago is not one we can use.
      if (begin != 0 && now - begin >= 0 && now - begin < java.util.concurrent.TimeUnit.HOURS.toNanos(1)) {
        return begin;
      }
    } catch (RuntimeException e) {
      // not a Jetty request: now is the best we know
    }
    return System.nanoTime();
  }

  /**
   * Closes the connection of {@code request} now, from any thread: the client sees it end at once
   * and the thread still answering finds it gone (its result is then recorded as not delivered).
   */
  static void close(HttpServletRequest request) {
    if (request == null) {
      return;
    }
    try {
      ServletContextRequest.getServletContextRequest(request).getConnectionMetaData().getConnection().getEndPoint().close();
    } catch (RuntimeException e) {
      // not a Jetty connection, or already closed: the waiting loop still stops at its next look
    }
  }

  /** True when the client has closed or reset the connection of {@code request}. */
  static boolean isGone(HttpServletRequest request) {
    EndPoint endPoint;
    try {
      ServletContextRequest core = ServletContextRequest.getServletContextRequest(request);
      endPoint = core.getConnectionMetaData().getConnection().getEndPoint();
    } catch (RuntimeException e) {
      return false; // not a Jetty connection we can probe: rely on the write itself
    }
    if (!endPoint.isOpen() || endPoint.isInputShutdown()) {
      return true;
    }
    if (!(endPoint instanceof org.eclipse.jetty.io.SocketChannelEndPoint)) {
      return false;
    }
    ByteBuffer probe = BufferUtil.allocate(1);
    try {
      int n = endPoint.fill(probe);
      return n < 0;
    } catch (IOException e) {
      return true;
    }
  }
}
