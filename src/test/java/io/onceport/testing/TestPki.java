package io.onceport.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemGenerationException;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A private CA for TLS tests, made with Bouncy Castle: a CA certificate, server certificates for
 * {@code localhost} and {@code 127.0.0.1}, and client certificates, each written as PEM files
 * (EC P-256, valid for a day). Serial numbers are distinct so that a TLS terminator's log tells
 * which client certificate a connection presented.
 */
public final class TestPki {
  private static final AtomicLong SERIALS = new AtomicLong(0x1000);
  private final String name;
  private final KeyPair caKeys;
  private final X509Certificate ca;

  private TestPki(String name) {
    this.name = name;
    this.caKeys = ecKeys();
    this.ca = sign(new X500Name("CN=" + name), caKeys, new X500Name("CN=" + name), caKeys.getPublic(), true, null, null);
  }

  /** A new CA named {@code name}. */
  public static TestPki newCa(String name) {
    return new TestPki(name);
  }

  /** The CA certificate as PEM in {@code file}. */
  public Path writeCa(Path file) {
    return write(file, pem(ca));
  }

  /** A key pair and a certificate signed by this CA, as PEM files. */
  public record Issued(Path cert, Path key, BigInteger serial) {
    /** The serial as nginx logs it ({@code $ssl_client_serial}: upper-case hex). */
    public String serialHex() {
      return serial.toString(16).toUpperCase(Locale.ROOT);
    }
  }

  /** A server certificate for {@code localhost} and {@code 127.0.0.1}, written to {@code dir/NAME.pem} and {@code dir/NAME.key}. */
  public Issued server(Path dir, String fileName) {
    KeyPair keys = ecKeys();
    GeneralNames names = new GeneralNames(new GeneralName[] {
        new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")});
    X509Certificate cert = sign(new X500Name("CN=" + name), caKeys, new X500Name("CN=localhost"), keys.getPublic(), false,
        KeyPurposeId.id_kp_serverAuth, names);
    return issued(dir, fileName, keys, cert);
  }

  /** A client certificate with common name {@code commonName}. */
  public Issued client(Path dir, String fileName, String commonName) {
    KeyPair keys = ecKeys();
    X509Certificate cert = sign(new X500Name("CN=" + name), caKeys, new X500Name("CN=" + commonName), keys.getPublic(), false,
        KeyPurposeId.id_kp_clientAuth, null);
    return issued(dir, fileName, keys, cert);
  }

  /**
   * Replaces {@code target}'s certificate and key files with {@code next}'s the way cert-manager
   * and rotation scripts do: new files moved over the old ones.
   */
  public static void rotate(Issued target, Issued next) {
    try {
      Files.copy(next.key(), target.key().resolveSibling(target.key().getFileName() + ".new"), StandardCopyOption.REPLACE_EXISTING);
      Files.copy(next.cert(), target.cert().resolveSibling(target.cert().getFileName() + ".new"), StandardCopyOption.REPLACE_EXISTING);
      Files.move(target.key().resolveSibling(target.key().getFileName() + ".new"), target.key(), StandardCopyOption.ATOMIC_MOVE);
      Files.move(target.cert().resolveSibling(target.cert().getFileName() + ".new"), target.cert(), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Issued issued(Path dir, String fileName, KeyPair keys, X509Certificate cert) {
    Path certFile = write(dir.resolve(fileName + ".pem"), pem(cert));
    Path keyFile = write(dir.resolve(fileName + ".key"), pkcs8(keys.getPrivate()));
    return new Issued(certFile, keyFile, cert.getSerialNumber());
  }

  private static X509Certificate sign(X500Name issuer, KeyPair issuerKeys, X500Name subject,
      PublicKey subjectKey, boolean isCa, KeyPurposeId purpose, GeneralNames names) {
    try {
      Instant now = Instant.now();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
          Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(1))), subject, subjectKey);
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(isCa ? KeyUsage.keyCertSign | KeyUsage.cRLSign
          : KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      if (purpose != null) {
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      }
      if (names != null) {
        b.addExtension(Extension.subjectAlternativeName, false, names);
      }
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
    } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair ecKeys() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(Object o) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** PKCS#8 ("BEGIN PRIVATE KEY"), the form OpenSSL 3 and every TLS library read. */
  private static String pkcs8(PrivateKey key) {
    try {
      return pem(new JcaPKCS8Generator(key, null).generate());
    } catch (PemGenerationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path write(Path file, String text) {
    try {
      return Files.writeString(file, text, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
