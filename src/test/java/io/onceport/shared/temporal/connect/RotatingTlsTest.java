package io.onceport.shared.temporal.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.testing.TestPki;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.math.BigInteger;
import java.nio.file.StandardCopyOption;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateException;
import java.security.interfaces.ECPrivateKey;
import javax.net.ssl.SSLEngine;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client certificate and CA behind a Temporal connection are read again from disk when the
 * files change — at the next handshake, without a new channel — and keys come in every PEM form
 * the tooling around Temporal writes. A file caught mid-write keeps the previous material.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RotatingTlsTest {
  @TempDir Path dir;

  @Test
  void aRotatedClientCertificateIsWhatTheNextHandshakePresents() throws Exception {
    TestPki pki = TestPki.newCa("rotation-ca");
    TestPki.Issued first = pki.client(dir, "client", "first");
    TestPki.Issued second = pki.client(dir, "client-next", "second");
    RotatingTls.ReloadingKeyManager keys = new RotatingTls.ReloadingKeyManager(
        PemSource.file(first.cert(), "--tls-cert"), PemSource.file(first.key(), "--tls-key"));
    String alias = keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
    assertEquals(first.serial(), keys.getCertificateChain(alias)[0].getSerialNumber());

    Files.copy(second.key(), first.key(), StandardCopyOption.REPLACE_EXISTING);
    alias = keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
    assertEquals(first.serial(), keys.getCertificateChain(alias)[0].getSerialNumber(),
        "a new key without its certificate (a rotation between its two moves) keeps the last good pair");
    Files.copy(second.cert(), first.cert(), StandardCopyOption.REPLACE_EXISTING);
    alias = keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
    X509Certificate presented = keys.getCertificateChain(alias)[0];
    assertEquals(second.serial(), presented.getSerialNumber(), "the next handshake presents the rotated certificate");
    assertEquals(presented.getPublicKey().getAlgorithm(), keys.getPrivateKey(alias).getAlgorithm());

    Files.writeString(first.cert(), "-----BEGIN CERTIFICATE-----\nhalf written");
    alias = keys.chooseEngineClientAlias(new String[] {"EC"}, null, null);
    assertEquals(second.serial(), keys.getCertificateChain(alias)[0].getSerialNumber(), "a half-written file keeps the last good one");
  }

  @Test
  void aRotatedCaIsWhatTheNextHandshakeTrusts() throws Exception {
    TestPki oldCa = TestPki.newCa("old-ca");
    TestPki newCa = TestPki.newCa("new-ca");
    Path caFile = oldCa.writeCa(dir.resolve("ca.pem"));
    X509Certificate fromNew = certificate(newCa.server(dir, "server-new").cert());
    RotatingTls.ReloadingTrustManager trust = new RotatingTls.ReloadingTrustManager(PemSource.file(caFile, "--tls-ca"), true);
    assertThrows(CertificateException.class, () -> trust.checkServerTrusted(new X509Certificate[] {fromNew}, "ECDHE_ECDSA",
        (SSLEngine) null));
    Path next = newCa.writeCa(dir.resolve("ca.pem.new"));
    Files.move(next, caFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    trust.checkServerTrusted(new X509Certificate[] {fromNew}, "ECDHE_ECDSA", (SSLEngine) null); // no exception: trusted now
  }

  @Test
  void keysAreReadAsPkcs8Pkcs1AndSec1AndAnEncryptedKeyIsNamedNotPrinted() throws Exception {
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(256);
    PrivateKey ecKey = ec.generateKeyPair().getPrivate();
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    PrivateKey rsaKey = rsa.generateKeyPair().getPrivate();

    BigInteger s = ((ECPrivateKey) ecKey).getS();
    assertEquals(s, ((ECPrivateKey) Pem.privateKey(source("pkcs8.key", pem(new JcaPKCS8Generator(ecKey, null).generate())))).getS());
    PrivateKeyInfo ecInfo = PrivateKeyInfo.getInstance(ecKey.getEncoded());
    // SEC1 as `openssl ecparam -genkey` writes it: the curve inside the key structure.
    String sec1 = pem(new PemObject("EC PRIVATE KEY",
        new org.bouncycastle.asn1.sec.ECPrivateKey(256, s, ecInfo.getPrivateKeyAlgorithm().getParameters()).getEncoded()));
    assertEquals(s, ((ECPrivateKey) Pem.privateKey(source("sec1.key", sec1))).getS());
    PrivateKeyInfo rsaInfo = PrivateKeyInfo.getInstance(rsaKey.getEncoded());
    String pkcs1 = pem(new PemObject("RSA PRIVATE KEY", rsaInfo.parsePrivateKey().toASN1Primitive().getEncoded()));
    assertTrue(Pem.privateKey(source("pkcs1.key", pkcs1)).getAlgorithm().startsWith("RSA"));

    String encrypted = pem(new JcaPKCS8Generator(ecKey, new JceOpenSSLPKCS8EncryptorBuilder(PKCSObjectIdentifiers.pbeWithSHAAnd3_KeyTripleDES_CBC)
        .setPassword("pw".toCharArray()).build()).generate());
    PemSource encryptedKey = source("encrypted.key", encrypted);
    IOException e = assertThrows(IOException.class, () -> Pem.privateKey(encryptedKey));
    assertEquals(encryptedKey + " is an encrypted private key: give the key unencrypted (kept private by file permissions), "
        + "e.g. openssl pkey -in KEY -out KEY.plain", e.getMessage());
    PemSource garbage = source("garbage.key", "-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----\n");
    IOException bad = assertThrows(IOException.class, () -> Pem.privateKey(garbage));
    assertTrue(bad.getMessage().startsWith(garbage + " is not a PEM private key"), bad.getMessage());
    assertTrue(!bad.getMessage().contains("not base64"), "the content is never echoed: " + bad.getMessage());
  }

  private PemSource source(String name, String text) throws IOException {
    return PemSource.file(Files.writeString(dir.resolve(name), text), "--tls-key");
  }

  private static X509Certificate certificate(Path pem) throws IOException {
    return Pem.certificates(PemSource.file(pem, "test"))[0];
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }
}
