package io.onceport.frontend.mcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A bare HTTP/1.1 client on a socket, so a test can vanish at a chosen moment. */
final class RawHttp {
  private RawHttp() {}

  static Socket send(int port, String method, String body, String... headers) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.setSoTimeout(15000);
    byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder req = new StringBuilder(method + " /mcp HTTP/1.1\r\n");
    boolean host = false;
    for (int i = 0; i < headers.length; i += 2) {
      host |= headers[i].equalsIgnoreCase("Host");
    }
    if (!host) {
      req.append("Host: 127.0.0.1:").append(port).append("\r\n");
    }
    for (int i = 0; i < headers.length; i += 2) {
      req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    if (body != null) {
      req.append("Content-Type: application/json\r\nContent-Length: ").append(b.length).append("\r\n");
    }
    req.append("\r\n");
    OutputStream out = s.getOutputStream();
    out.write(req.toString().getBytes(StandardCharsets.US_ASCII));
    out.write(b);
    out.flush();
    return s;
  }

  /** Reads until {@code marker} has arrived (or the stream ends); returns what was read. */
  static String readUntil(Socket s, String marker) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!got.toString(StandardCharsets.UTF_8).contains(marker)) {
      int n = in.read(buf);
      if (n < 0) {
        break;
      }
      got.write(buf, 0, n);
    }
    return got.toString(StandardCharsets.UTF_8);
  }
}
