package io.onceport.shared.temporal.connect;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM certificates and private keys, parsed with the JDK (certificates) and Bouncy Castle (keys:
 * PKCS#8, and the PKCS#1 RSA and SEC1 EC forms that cert-manager, {@code openssl genrsa} and
 * older tooling write, which the JDK cannot read). Errors name the file or setting, never the
 * content.
 */
final class Pem {
  private Pem() {}

  static X509Certificate[] certificates(PemSource source) throws IOException {
    byte[] pem = source.read();
    try {
      X509Certificate[] certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))
          .stream().map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
      if (certs.length == 0) {
        throw new IOException(source + " holds no PEM certificate");
      }
      return certs;
    } catch (CertificateException e) {
      throw new IOException(source + " is not a PEM certificate: " + e.getMessage(), e);
    }
  }

  static PrivateKey privateKey(PemSource source) throws IOException {
    byte[] pem = source.read();
    Object found = null;
    try (PEMParser parser = new PEMParser(new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII))) {
      for (Object o = parser.readObject(); o != null && found == null; o = parser.readObject()) {
        if (o instanceof PrivateKeyInfo || o instanceof PEMKeyPair || o instanceof PEMEncryptedKeyPair
            || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          found = o;
        }
      }
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (found instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      if (found instanceof PEMKeyPair pair) {
        return converter.getPrivateKey(pair.getPrivateKeyInfo()); // a SEC1 key may leave its public key out
      }
    } catch (IOException | RuntimeException e) {
      throw new IOException(source + " is not a PEM private key (" + e.getClass().getSimpleName() + ")", e);
    }
    if (found != null) {
      throw new IOException(source + " is an encrypted private key: give the key unencrypted (kept private by file "
          + "permissions), e.g. openssl pkey -in KEY -out KEY.plain");
    }
    throw new IOException(source + " holds no PEM private key");
  }
}
