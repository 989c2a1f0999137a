package io.onceport.shared.temporal.connect;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS context of a Temporal connection, whose client certificate and CA are read again from
 * disk when the files change. Temporal's {@code ClientConfigProfile#toWorkflowServiceStubsOptions}
 * reads them once into an {@code SslContext}, and a gRPC channel keeps its context for life: a
 * certificate rotated by cert-manager or a cron job would be used only after a restart, and an
 * expired one would break a long-running worker's next reconnect. Here the key and trust managers
 * check the files' stamps (one {@code stat} per file) at each TLS handshake — once per new
 * connection, never per call — and load the new material then. A file caught mid-write (unreadable
 * or unparseable) keeps the previous material and is logged.
 */
final class RotatingTls {
  private static final Logger log = LoggerFactory.getLogger(RotatingTls.class);
  private static final char[] NO_PASSWORD = new char[0];

  private RotatingTls() {}

  /** The context for {@code settings} (TLS on); fails with a one-line message naming the file that cannot be used. */
  static SslContext context(ClientSettings settings) {
    try {
      SslContextBuilder builder = GrpcSslContexts.forClient();
      if (settings.clientCert() != null) {
        builder.keyManager(new ReloadingKeyManager(settings.clientCert(), settings.clientKey()));
      }
      builder.trustManager(new ReloadingTrustManager(settings.serverCa(), settings.disableHostVerification()));
      return builder.build();
    } catch (IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    } catch (UncheckedIOException e) {
      throw new IllegalArgumentException(e.getCause().getMessage(), e);
    }
  }

  /** Material loaded from files, with the stamps it was loaded at. */
  private record Loaded<T>(List<Object> stamps, T material) {}

  /** Keeps {@code material} current: reloads when a stamp changed, keeps the old material if the new cannot be read. */
  private static final class Reloading<T> {
    private final List<PemSource> sources;
    private final Loader<T> loader;
    private volatile Loaded<T> loaded;

    interface Loader<T> {
      T load() throws IOException, GeneralSecurityException;
    }

    Reloading(List<PemSource> sources, Loader<T> loader) throws IOException {
      this.sources = sources;
      this.loader = loader;
      List<Object> stamps = stamps();
      try {
        this.loaded = new Loaded<>(stamps, loader.load());
      } catch (GeneralSecurityException e) {
        throw new IOException(sources.get(0) + " cannot be used: " + e.getMessage(), e);
      }
    }

    private List<Object> stamps() {
      return sources.stream().map(PemSource::stamp).toList();
    }

    T current() {
      Loaded<T> l = loaded;
      List<Object> now = stamps();
      if (l.stamps().equals(now)) {
        return l.material();
      }
      synchronized (this) {
        if (!loaded.stamps().equals(now)) {
          try {
            loaded = new Loaded<>(now, loader.load());
            log.info("reloaded TLS material from {} for new Temporal connections", sources);
          } catch (IOException | GeneralSecurityException | RuntimeException e) {
            log.warn("cannot reload TLS material from {} ({}); new Temporal connections keep the previous one", sources, e.getMessage());
          }
        }
        return loaded.material();
      }
    }
  }

  /** The client certificate and key, reloaded when either file changes. */
  static final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private static final String ALIAS = "client";
    private final Reloading<X509ExtendedKeyManager> keys;

    ReloadingKeyManager(PemSource cert, PemSource key) throws IOException {
      this.keys = new Reloading<>(List.of(cert, key), () -> load(cert, key));
    }

    private static X509ExtendedKeyManager load(PemSource cert, PemSource key) throws IOException, GeneralSecurityException {
      X509Certificate[] chain = Pem.certificates(cert);
      PrivateKey privateKey = Pem.privateKey(key);
      if (!matches(chain[0].getPublicKey(), privateKey)) {
        // A rotation caught between its two file moves: the next handshake loads the matching pair.
        throw new GeneralSecurityException("the key in " + key + " does not belong to the certificate in " + cert);
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(ALIAS, privateKey, NO_PASSWORD, chain);
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, NO_PASSWORD);
      return (X509ExtendedKeyManager) factory.getKeyManagers()[0];
    }

    /** Whether {@code privateKey} signs what {@code publicKey} verifies. */
    private static boolean matches(PublicKey publicKey, PrivateKey privateKey) throws GeneralSecurityException {
      String algorithm = switch (publicKey.getAlgorithm()) {
        case "EC" -> "SHA256withECDSA";
        case "RSA" -> "SHA256withRSA";
        case "Ed25519", "EdDSA" -> "Ed25519";
        default -> null;
      };
      if (algorithm == null) {
        return true; // an unusual key type: the handshake will tell
      }
      byte[] probe = "onceport key check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(privateKey);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      return verifier.verify(signature);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      return keys.current().chooseEngineClientAlias(keyType, issuers, engine);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return keys.current().chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return keys.current().getClientAliases(keyType, issuers);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return keys.current().getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return keys.current().getPrivateKey(alias);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return null; // a client only
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return null;
    }
  }

  /**
   * Trusts the configured CA (reloaded when its file changes), or the system's CAs without one.
   * Host names are checked by the JDK's trust manager (gRPC asks for HTTPS endpoint identification)
   * unless {@code TEMPORAL_TLS_DISABLE_HOST_VERIFICATION} is set, which skips only that check — the
   * chain must still lead to a trusted CA.
   */
  static final class ReloadingTrustManager extends X509ExtendedTrustManager {
    private final Supplier<X509ExtendedTrustManager> trust;
    private final boolean skipHostName;

    ReloadingTrustManager(PemSource ca, boolean skipHostName) throws IOException {
      this.skipHostName = skipHostName;
      if (ca == null) {
        try {
          X509ExtendedTrustManager system = load(null);
          this.trust = () -> system;
        } catch (GeneralSecurityException e) {
          throw new IOException("cannot load the system's trusted CAs: " + e.getMessage(), e);
        }
      } else {
        Reloading<X509ExtendedTrustManager> reloading = new Reloading<>(List.of(ca), () -> load(Pem.certificates(ca)));
        this.trust = reloading::current;
      }
    }

    private static X509ExtendedTrustManager load(X509Certificate[] cas) throws IOException, GeneralSecurityException {
      KeyStore store = null;
      if (cas != null) {
        store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < cas.length; i++) {
          store.setCertificateEntry("ca-" + i, cas[i]);
        }
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      for (TrustManager tm : factory.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new GeneralSecurityException("no X.509 trust manager");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      if (skipHostName) {
        ((X509TrustManager) trust.get()).checkServerTrusted(chain, authType);
      } else {
        trust.get().checkServerTrusted(chain, authType, engine);
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      if (skipHostName) {
        ((X509TrustManager) trust.get()).checkServerTrusted(chain, authType);
      } else {
        trust.get().checkServerTrusted(chain, authType, socket);
      }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      trust.get().checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
      throw new CertificateException("a client trusts no clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
      throw new CertificateException("a client trusts no clients");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("a client trusts no clients");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return trust.get().getAcceptedIssuers();
    }
  }
}
