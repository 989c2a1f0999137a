package io.onceport.activity.ssh;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.digest.BuiltinDigests;

/** Key material generated per test run; nothing is checked in. */
final class TestKeys {
  private TestKeys() {}

  static KeyPair ec() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  /** An EC key from Bouncy Castle, whose traditional PEM carries the curve and public key as ssh-keygen's does. */
  static KeyPair ecFromBouncyCastle() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC", new org.bouncycastle.jce.provider.BouncyCastleProvider());
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  static KeyPair rsa() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  /** {@code -----BEGIN OPENSSH PRIVATE KEY-----}, unencrypted. */
  static String openSshPrivateKey(KeyPair pair) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(pair, "onceport-test", null, out);
    return out.toString(StandardCharsets.US_ASCII);
  }

  /** {@code -----BEGIN PRIVATE KEY-----} (PKCS#8 PEM). */
  static String pkcs8PrivateKey(KeyPair pair) {
    String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pair.getPrivate().getEncoded());
    return "-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----\n";
  }

  /** {@code -----BEGIN RSA PRIVATE KEY-----} / {@code -----BEGIN EC PRIVATE KEY-----}, as {@code ssh-keygen -m PEM} writes. */
  static String traditionalPem(KeyPair pair) throws Exception {
    java.io.StringWriter out = new java.io.StringWriter();
    try (org.bouncycastle.openssl.jcajce.JcaPEMWriter pem = new org.bouncycastle.openssl.jcajce.JcaPEMWriter(out)) {
      pem.writeObject(pair);
    }
    return out.toString();
  }

  /** One authorized_keys line. */
  static String authorizedKey(KeyPair pair) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OpenSSHKeyPairResourceWriter.INSTANCE.writePublicKey(pair.getPublic(), "onceport-test", out);
    return out.toString(StandardCharsets.US_ASCII).trim() + "\n";
  }

  /** MINA's own fingerprint code, independent of the one under test. */
  static String fingerprint(KeyPair pair) {
    return KeyUtils.getFingerPrint(BuiltinDigests.sha256, pair.getPublic());
  }
}
