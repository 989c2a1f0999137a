package io.onceport.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * nginx in front of a Temporal server, as a secured cluster looks from a client: one port that
 * requires a client certificate from a private CA ({@code ssl_verify_client on}), one that requires
 * {@code authorization: Bearer <key>} (nginx checks the header, as Temporal Cloud checks an API
 * key), both HTTP/2 over TLS with {@code grpc_pass} to the server. Settings from STACK.md:
 * {@code grpc_read_timeout} above Temporal's 70 s long polls, {@code client_max_body_size 0}. The
 * access log records each request's client-certificate serial (never a header). Loopback only;
 * closing stops only this nginx (its master process, by its handle). Skipped where nginx is not
 * installed, a failure under CI ({@code .ci/run} installs {@code nginx-light}).
 */
public final class TlsTerminator implements AutoCloseable {
  private final Path dir;
  private final Path binary;
  private final Process process;
  public final int mtlsPort;
  public final int bearerPort;

  private TlsTerminator(Path dir, Path binary, Process process, int mtlsPort, int bearerPort) {
    this.dir = dir;
    this.binary = binary;
    this.process = process;
    this.mtlsPort = mtlsPort;
    this.bearerPort = bearerPort;
  }

  public static Path binaryOrSkip() {
    Path nginx = List.of(Path.of("/usr/sbin/nginx"), Path.of("/usr/bin/nginx")).stream().filter(Files::isExecutable)
        .findFirst().orElse(null);
    if (nginx == null && System.getenv("CI") != null) {
      fail("CI is set but nginx is not installed (.ci/run installs nginx-light)");
    }
    assumeTrue(nginx != null, "nginx is not installed (apt-get install nginx-light)");
    return nginx;
  }

  /**
   * Starts nginx in {@code dir} with the server certificate {@code server}, client certificates
   * checked against {@code clientCa}, and {@code apiKey} as the one accepted bearer token.
   */
  public static TlsTerminator start(Path dir, int temporalPort, TestPki.Issued server, Path clientCa, String apiKey)
      throws IOException, InterruptedException {
    Path binary = binaryOrSkip();
    Files.createDirectories(dir.resolve("temp"));
    int mtls = Cluster.freePort();
    int bearer = Cluster.freePort();
    boolean root = "root".equals(System.getProperty("user.name"));
    Files.writeString(dir.resolve("nginx.conf"), """
        %s
        worker_processes 1;
        pid %s/nginx.pid;
        error_log %s/error.log notice;
        daemon off;
        events { worker_connections 512; }
        http {
          log_format onceport '$remote_addr $server_port $status "$request" serial=$ssl_client_serial verify=$ssl_client_verify';
          access_log %s/access.log onceport;
          client_body_temp_path %s/temp/body;
          proxy_temp_path %s/temp/proxy;
          fastcgi_temp_path %s/temp/fastcgi;
          uwsgi_temp_path %s/temp/uwsgi;
          scgi_temp_path %s/temp/scgi;
          # Temporal's long polls last up to 70 s: a shorter read timeout would cut every idle poll.
          grpc_read_timeout 300s;
          grpc_send_timeout 300s;
          client_max_body_size 0;
          upstream temporal { server 127.0.0.1:%d; keepalive 16; }
          server {
            listen 127.0.0.1:%d ssl http2;
            ssl_certificate %s;
            ssl_certificate_key %s;
            ssl_client_certificate %s;
            ssl_verify_client on;
            location / { grpc_pass grpc://temporal; }
          }
          server {
            listen 127.0.0.1:%d ssl http2;
            ssl_certificate %s;
            ssl_certificate_key %s;
            location / {
              if ($http_authorization != "Bearer %s") { return 401; }
              # Checked here, as a gateway does: the key goes no further.
              grpc_set_header authorization "";
              grpc_pass grpc://temporal;
            }
          }
        }
        # A reload ends the old worker's long polls after this, not after 70 s.
        worker_shutdown_timeout 5s;
        """.formatted(root ? "user root;" : "", dir, dir, dir, dir, dir, dir, dir, dir, temporalPort, mtls, server.cert(), server.key(),
        clientCa, bearer, server.cert(), server.key(), apiKey));
    Process p = new ProcessBuilder(binary.toString(), "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
    TlsTerminator t = new TlsTerminator(dir, binary, p, mtls, bearer);
    try {
      t.awaitListening(mtls, Duration.ofSeconds(30));
      t.awaitListening(bearer, Duration.ofSeconds(30));
    } catch (AssertionError | RuntimeException e) {
      t.close();
      throw e;
    }
    return t;
  }

  private void awaitListening(int port, Duration timeout) throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("nginx exited " + process.exitValue() + ": " + Files.readString(dir.resolve("nginx.out")));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("nginx did not listen on " + port + " within " + timeout);
  }

  /**
   * Reloads the configuration ({@code nginx -s reload}, a SIGHUP to this nginx's master by its pid
   * file): new worker processes take new connections, the old ones close theirs — every client
   * connects again.
   */
  public void reload() throws IOException, InterruptedException {
    Process r = new ProcessBuilder(binary.toString(), "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString(), "-s", "reload")
        .redirectErrorStream(true).start();
    if (!r.waitFor(30, TimeUnit.SECONDS) || r.exitValue() != 0) {
      throw new AssertionError("nginx -s reload failed: " + new String(r.getInputStream().readAllBytes()));
    }
  }

  public String mtlsAddress() {
    return "127.0.0.1:" + mtlsPort;
  }

  public String bearerAddress() {
    return "127.0.0.1:" + bearerPort;
  }

  /** The access log so far: one line per request with its port, status and client-certificate serial. */
  public List<String> accessLog() throws IOException {
    Path log = dir.resolve("access.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  /** Every file nginx wrote (logs), for secret searches. */
  public List<Path> logFiles() {
    return List.of(dir.resolve("access.log"), dir.resolve("error.log"), dir.resolve("nginx.out"));
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy(); // SIGTERM to the master: a fast shutdown of it and its workers
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
