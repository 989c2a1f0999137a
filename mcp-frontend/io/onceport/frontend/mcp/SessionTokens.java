package io.onceport.frontend.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Session ids as self-contained tokens: {@code base64url(payload) "." base64url(HMAC-SHA256)}. Any
 * front end with the same key validates any session, also after a restart; nothing but the
 * revocation set (DELETE) is stored. The payload holds no secret (it is only signed, not
 * encrypted): random nonce, actor, credential generation, protocol version, client info, issue time.
 */
final class SessionTokens {
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();
  private final SecretKeySpec key;
  private final long ttlSeconds;
  private final SessionRevocations revocations;
  private final SecureRandom random = new SecureRandom();

  SessionTokens(byte[] key, long ttlSeconds, SessionRevocations revocations) {
    this.key = new SecretKeySpec(key, "HmacSHA256");
    this.ttlSeconds = ttlSeconds;
    this.revocations = revocations;
  }

  Session issue(String actor, String generation, String protocolVersion, ClientInfo client, long nowEpochSecond) {
    byte[] nonceBytes = new byte[16];
    random.nextBytes(nonceBytes);
    String nonce = B64.encodeToString(nonceBytes);
    ObjectNode p = Json.MAPPER.createObjectNode();
    p.put("n", nonce).put("a", actor).put("v", protocolVersion).put("iat", nowEpochSecond);
    if (generation != null) {
      p.put("g", generation);
    }
    if (client.name() != null) {
      p.put("cn", client.name());
      if (client.version() != null) {
        p.put("cv", client.version());
      }
    }
    String payload = B64.encodeToString(Json.bytes(p));
    String id = payload + "." + B64.encodeToString(mac(payload));
    return new Session(id, nonce, actor, generation, protocolVersion, client, nowEpochSecond);
  }

  /** The session this id names, or empty when forged, expired or ended. */
  Optional<Session> verify(String id, long nowEpochSecond) {
    int dot = id.indexOf('.');
    if (dot <= 0 || dot != id.lastIndexOf('.')) {
      return Optional.empty();
    }
    String payload = id.substring(0, dot);
    byte[] sig;
    try {
      sig = B64D.decode(id.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (!MessageDigest.isEqual(sig, mac(payload))) {
      return Optional.empty();
    }
    JsonNode p;
    try {
      p = Json.MAPPER.readTree(B64D.decode(payload));
    } catch (Exception e) {
      return Optional.empty();
    }
    long iat = p.path("iat").asLong(-1);
    String nonce = p.path("n").asText(null);
    if (iat < 0 || nonce == null || nowEpochSecond > iat + ttlSeconds || revocations.isRevoked(nonce)) {
      return Optional.empty();
    }
    return Optional.of(new Session(id, nonce, p.path("a").asText(), p.hasNonNull("g") ? p.get("g").asText() : null,
        p.path("v").asText(), client(p), iat));
  }

  /** The client of a token: {@code cn}/{@code cv}, or the one {@code c} ("name/version") of tokens issued before. */
  private static ClientInfo client(JsonNode p) {
    if (p.hasNonNull("cn")) {
      return new ClientInfo(p.get("cn").asText(), p.hasNonNull("cv") ? p.get("cv").asText() : null);
    }
    if (p.hasNonNull("c")) {
      String c = p.get("c").asText();
      int slash = c.indexOf('/');
      return slash < 0 ? new ClientInfo(c, null) : new ClientInfo(c.substring(0, slash), c.substring(slash + 1));
    }
    return ClientInfo.NONE;
  }

  void revoke(Session s) {
    revocations.revoke(s.nonce(), s.issuedAt() + ttlSeconds);
  }

  private byte[] mac(String payload) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(key);
      return m.doFinal(payload.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
