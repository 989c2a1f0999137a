package io.onceport.activity.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Forwards 127.0.0.1:port() to a target; {@link #cut()} drops every connection at once. */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  TcpProxy(int targetPort) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    Thread accept = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Socket upstream = new Socket("127.0.0.1", targetPort);
          sockets.add(client);
          sockets.add(upstream);
          pump(client.getInputStream(), upstream.getOutputStream());
          pump(upstream.getInputStream(), client.getOutputStream());
        } catch (IOException e) {
          return;
        }
      }
    }, "proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  private static void pump(InputStream in, OutputStream out) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) != -1) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException ignored) {
        // cut
      }
    }, "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void cut() {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    cut();
  }
}
