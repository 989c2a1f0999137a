package io.onceport.shared.temporal.connect;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Turns a failed first call to Temporal into one line that names the setting to fix. gRPC reports
 * a TLS problem as {@code UNAVAILABLE: io exception} with the reason several causes deep, a client
 * certificate refused by a TLS terminator as {@code INTERNAL: HTTP status code 400}, and a
 * plaintext call to a TLS port as an HTTP/2 framing error: none of which says what to change.
 */
final class ConnectFailures {
  private ConnectFailures() {}

  static TemporalConnectException classify(Throwable e, ClientSettings s) {
    String at = "Temporal at " + s.address().value();
    String chain = chain(e).toLowerCase(Locale.ROOT);
    Status status = status(e);
    if (s.tls()) {
      String tls = tlsFailure(chain, status, s, at);
      if (tls != null) {
        return new TemporalConnectException(tls, false, e);
      }
    } else if (looksLikeTlsPort(chain, status) && speaksTls(s.address().value())) {
      return new TemporalConnectException(at + " speaks TLS but this connection is plaintext: turn TLS on with "
          + "TEMPORAL_TLS=true (and TEMPORAL_TLS_SERVER_CA_CERT_PATH or --tls-ca for a private CA)", false, e);
    }
    if (status != null && status.getCode() == Status.Code.UNAUTHENTICATED) {
      return new TemporalConnectException(s.apiKey() == null
          ? at + " refused the call as unauthenticated (" + brief(status) + "): give an API key with TEMPORAL_API_KEY or "
              + "--api-key-file" + (s.clientCert() == null ? ", or a client certificate with TEMPORAL_TLS_CLIENT_CERT_PATH" : "")
          : at + " refused the " + s.apiKey() + " (" + brief(status) + "): fix " + s.apiKey().source(), false, e);
    }
    if (status != null && status.getCode() == Status.Code.PERMISSION_DENIED) {
      return new TemporalConnectException(at + " denied access (" + brief(status) + "): the " + s.auth().label()
          + " credentials have no access to namespace " + s.namespace().value() + " (" + s.namespace().source() + ")", false, e);
    }
    return new TemporalConnectException("cannot reach " + at + ": " + reason(e)
        + " (is `onceport serve` or a Temporal cluster running there? see --temporal or TEMPORAL_ADDRESS)", true, e);
  }

  /** The one-line reason for a TLS-side failure, or null when the failure is not one. */
  private static String tlsFailure(String chain, Status status, ClientSettings s, String at) {
    if (chain.contains("not an ssl/tls record") || chain.contains("wrong_version_number")
        || chain.contains("unsupported or unrecognized ssl message")) {
      return at + " does not speak TLS, but TLS is on (" + s.tlsReason() + "): point TEMPORAL_ADDRESS (or --temporal) at its "
          + "TLS port, or turn TLS off with TEMPORAL_TLS=false";
    }
    if (chain.contains("pkix path") || chain.contains("certification path") || chain.contains("certpathvalidator")) {
      return s.serverCa() == null
          ? at + " presented a certificate no CA of this system trusts: set TEMPORAL_TLS_SERVER_CA_CERT_PATH (or --tls-ca) "
              + "to the CA that signed it"
          : at + " presented a certificate not signed by the CA in " + s.serverCa() + ": fix " + s.serverCa().source()
              + " to name the CA that signed the server's certificate";
    }
    if (chain.contains("no subject alternative") || chain.contains("no name matching")) {
      String host = s.serverName() != null ? s.serverName().value() + " (" + s.serverName().source() + ")" : hostOf(s.address().value());
      return at + " presented a certificate that is not for " + host + ": set TEMPORAL_TLS_SERVER_NAME (or --tls-server-name) "
          + "to a name the certificate holds";
    }
    boolean refusedHere = chain.contains("http status code 400") || chain.contains("certificate_required")
        || chain.contains("bad_certificate") || chain.contains("unknown_ca") || chain.contains("certificate_expired")
        || chain.contains("certificate_revoked");
    if (refusedHere) {
      return s.clientCert() == null
          ? at + " requires a client certificate (mTLS) and none is set: set TEMPORAL_TLS_CLIENT_CERT_PATH and "
              + "TEMPORAL_TLS_CLIENT_KEY_PATH (or --tls-cert and --tls-key)"
          : at + " refused the client certificate " + s.clientCert() + ": it is not signed by a CA the server trusts, or has "
              + "expired; fix " + s.clientCert().source() + " and " + s.clientKey().source();
    }
    return null;
  }

  /** What a plaintext HTTP/2 client sees from a TLS port: an HTTP/1 error page, a reset, a closed connection. */
  private static boolean looksLikeTlsPort(String chain, Status status) {
    if (chain.contains("connection refused") || chain.contains("unresolvedaddress") || chain.contains("unknownhost")) {
      return false;
    }
    return chain.contains("first received frame was not settings") || chain.contains("http2 exception")
        || chain.contains("network closed") || chain.contains("connection reset")
        || (status != null && status.getCode() == Status.Code.UNAVAILABLE);
  }

  /**
   * Whether {@code address} answers a TLS ClientHello with a ServerHello. A diagnostic after a
   * failed plaintext connection only: it sends nothing but the handshake and trusts nothing it sees.
   */
  static boolean speaksTls(String address) {
    URI parsed = URI.create("tcp://" + address.replaceFirst("^[a-z]+:///", ""));
    if (parsed.getHost() == null || parsed.getPort() < 0) {
      return false;
    }
    try (Socket raw = new Socket()) {
      raw.connect(new InetSocketAddress(parsed.getHost(), parsed.getPort()), 2000);
      raw.setSoTimeout(2000);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new AcceptAnyForProbe()}, null);
      try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(raw, parsed.getHost(), parsed.getPort(), false)) {
        tls.startHandshake();
        return true;
      }
    } catch (SSLException e) {
      String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
      // A TLS alert (a certificate the server wants, a protocol it refuses) is still a TLS server.
      return m.contains("alert") && !m.contains("unrecognized");
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  private static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    return colon > 0 ? address.substring(0, colon) : address;
  }

  private static Status status(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StatusRuntimeException sre) {
        return sre.getStatus();
      }
    }
    return null;
  }

  private static String brief(Status status) {
    String d = status.getDescription();
    return status.getCode() + (d == null ? "" : " " + d.lines().findFirst().orElse(""));
  }

  /** Every message in the cause chain, for matching. */
  private static String chain(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      b.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" | ");
    }
    return b.toString();
  }

  /** The gRPC status and the innermost cause: "UNAVAILABLE io exception: Connection refused". */
  static String reason(Throwable e) {
    Throwable inner = e;
    while (inner.getCause() != null && inner.getCause() != inner) {
      inner = inner.getCause();
    }
    Status status = status(e);
    String innermost = inner.getMessage() == null ? inner.getClass().getSimpleName() : inner.getMessage().lines().findFirst().orElse("");
    if (status == null) {
      return innermost;
    }
    return inner instanceof StatusRuntimeException ? brief(status) : brief(status) + ": " + innermost;
  }

  /** Accepts any server certificate: used only by {@link #speaksTls}, which sends no data. */
  private static final class AcceptAnyForProbe implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
