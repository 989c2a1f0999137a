package io.onceport.activity.ssh;

import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.userauth.keyprovider.KeyProvider;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jcajce.provider.asymmetric.util.EC5Util;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Loads an unencrypted private key from its text, in memory. OpenSSH keys go to SSHJ; PEM keys
 * (traditional {@code RSA/EC PRIVATE KEY} and PKCS#8 {@code PRIVATE KEY}) are read with Bouncy
 * Castle, because SSHJ 0.40 cannot read traditional EC keys or PKCS#8 EC keys without an embedded
 * public key. Parsing happens here, eagerly, so a bad key fails before any connection is made.
 */
final class PrivateKeys {
  private PrivateKeys() {}

  static KeyProvider load(SSHClient client, String text) throws IOException, GeneralSecurityException {
    if (text.contains("-----BEGIN ") && !text.contains("-----BEGIN OPENSSH PRIVATE KEY-----")) {
      try (PEMParser parser = new PEMParser(new StringReader(text))) {
        Object parsed = parser.readObject();
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        if (parsed instanceof PEMKeyPair) {
          PEMKeyPair pair = (PEMKeyPair) parsed;
          if (pair.getPublicKeyInfo() != null) {
            return client.loadKeys(converter.getKeyPair(pair));
          }
          parsed = pair.getPrivateKeyInfo();
        }
        if (parsed instanceof PrivateKeyInfo) {
          PrivateKey key = converter.getPrivateKey((PrivateKeyInfo) parsed);
          return client.loadKeys(new KeyPair(publicKeyOf(key), key));
        }
      }
    }
    KeyProvider keys = client.loadKeys(text, null, null);
    keys.getPrivate();
    keys.getPublic();
    return keys;
  }

  private static PublicKey publicKeyOf(PrivateKey key) throws GeneralSecurityException {
    if (key instanceof RSAPrivateCrtKey) {
      RSAPrivateCrtKey rsa = (RSAPrivateCrtKey) key;
      return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent()));
    }
    if (key instanceof ECPrivateKey) {
      ECPrivateKey ec = (ECPrivateKey) key;
      org.bouncycastle.math.ec.ECPoint q =
          EC5Util.convertSpec(ec.getParams()).getG().multiply(ec.getS()).normalize();
      BigInteger x = q.getAffineXCoord().toBigInteger();
      BigInteger y = q.getAffineYCoord().toBigInteger();
      return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(new ECPoint(x, y), ec.getParams()));
    }
    throw new GeneralSecurityException("unsupported PKCS#8 key algorithm " + key.getAlgorithm());
  }
}
