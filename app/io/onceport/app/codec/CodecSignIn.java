package io.onceport.app.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.frontend.fingerprint.FingerprintKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * An operator's sign-in to the codec server: a one-time link, then a short-lived cookie. Whoever can
 * call {@code /codec/decode} reads every argument and response in history, so reaching the port or
 * sending an allowed {@code Origin} never decodes anything by itself: the browser must hold the
 * cookie, and the cookie is only had by redeeming a ticket once.
 *
 * <p><b>Tickets</b> ({@code ocs1.<kind>.<payload>.<signature>}, the payload a JSON object with the
 * subject, a random nonce and the expiry) come two ways:
 * <ul>
 *   <li>{@code l} (local): signed with a key derived from the deployment's fingerprint key in
 *       {@code <data>/keys} — minted by {@code serve} at start and by {@code onceport operator
 *       codec-link --local}. Whoever holds the data directory holds the payload keys already, so
 *       this grants nothing new; the subject is {@code local}.
 *   <li>{@code o} (operator): signed with a registered operator's Ed25519 key ({@code onceport
 *       operator codec-link --operator NAME}), verified against {@code <data>/operators.json}: an
 *       operator on a laptop signs in to a front end on a server without its data directory.
 * </ul>
 * A ticket is redeemed at most once per front end (its nonce is kept until it expires; only valid
 * tickets are kept, so the set is bounded by what holders of a key mint) and only before its expiry.
 *
 * <p><b>The cookie</b> ({@value #COOKIE}, {@code HttpOnly}, {@code Path=/codec}) carries the subject,
 * the operator's key id and its expiry ({@link #SESSION}), MACed with the same derived key, so every
 * front end sharing {@code <data>/keys} accepts it. An operator's cookie stops working when the
 * operator is removed or its key rotated.
 */
public final class CodecSignIn {
  /** The session cookie's name. */
  public static final String COOKIE = "onceport_codec";
  /** How long a signed-in browser decodes before the operator signs in again. */
  public static final Duration SESSION = Duration.ofHours(1);
  /** How long a link from {@code onceport operator codec-link} can be used (once). */
  public static final Duration LINK = Duration.ofMinutes(10);
  static final String PREFIX = "ocs1.";
  private static final String LOCAL = "l";
  private static final String OPERATOR = "o";
  private static final String LOCAL_SUBJECT = "local";
  private static final String OPERATOR_SUBJECT = "operator:";
  private static final String TICKET_DOMAIN = "onceport/codec-sign-in/v1\n";
  private static final String COOKIE_DOMAIN = "onceport/codec-session/v1\n";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder UNB64 = Base64.getUrlDecoder();

  private final byte[] key;
  private final OperatorRegistry operators;
  private final Clock clock;
  private final Map<String, Instant> redeemed = new ConcurrentHashMap<>();

  /**
   * @param key the MAC key for local tickets and cookies ({@link #keyOf})
   * @param operators the registry operator tickets and cookies are checked against
   */
  public CodecSignIn(byte[] key, OperatorRegistry operators, Clock clock) {
    this.key = Objects.requireNonNull(key, "key == null").clone();
    this.operators = Objects.requireNonNull(operators, "operators == null");
    this.clock = Objects.requireNonNull(clock, "clock == null");
  }

  /** The sign-in of the deployment whose data directory is {@code dataDir}. */
  public static CodecSignIn forDataDir(Path dataDir) {
    try {
      return new CodecSignIn(keyOf(FingerprintKey.loadOrCreate(dataDir)), new OperatorRegistry(dataDir), Clock.systemUTC());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the keys under " + dataDir + ": " + e.getMessage(), e);
    }
  }

  /** A key of its own, derived from the fingerprint key (never the fingerprint key itself). */
  static byte[] keyOf(FingerprintKey fingerprintKey) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(
          fingerprintKey.hmac("onceport/codec-session-key").getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Who a ticket or cookie names: {@code local} or {@code operator:NAME} (with its key id), and until when. */
  public record Who(String subject, String keyId, Instant until) {
    public Who {
      Objects.requireNonNull(subject, "subject == null");
      Objects.requireNonNull(until, "until == null");
    }
  }

  /** A ticket was not accepted; the message says why without repeating the ticket. */
  public static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  /** A local ticket valid for {@code lifetime}, for the data directory's holder. */
  public String mintLocal(Duration lifetime) {
    String payload = payload(LOCAL_SUBJECT, null, clock.instant().plus(lifetime));
    return PREFIX + LOCAL + "." + payload + "." + B64.encodeToString(mac(TICKET_DOMAIN + LOCAL + "." + payload));
  }

  /** A ticket signed by {@code operator}, valid for {@code lifetime} from {@code now}. */
  public static String mintOperator(OperatorKey operator, Instant now, Duration lifetime) {
    String payload = payload(OPERATOR_SUBJECT + operator.operator(), operator.keyId(), now.plus(lifetime));
    String signature = operator.signText(TICKET_DOMAIN + OPERATOR + "." + payload);
    return PREFIX + OPERATOR + "." + payload + "." + B64.encodeToString(Base64.getDecoder().decode(signature));
  }

  /** Checks a ticket and spends it: the second redemption of the same ticket is refused. */
  public Who redeem(String ticket) throws Refused {
    String[] parts = ticket == null ? new String[0] : ticket.split("\\.", -1);
    if (parts.length != 4 || !(parts[0] + ".").equals(PREFIX)) {
      throw new Refused("not a sign-in link of this codec server");
    }
    String kind = parts[1];
    String payload = parts[2];
    byte[] signature = decode(parts[3]);
    JsonNode p = json(payload);
    Instant now = clock.instant();
    Instant expires = Instant.ofEpochSecond(p.path("exp").asLong());
    String subject = p.path("sub").asText();
    String keyId = p.hasNonNull("kid") ? p.get("kid").asText() : null;
    if (LOCAL.equals(kind)) {
      if (!LOCAL_SUBJECT.equals(subject) || !MessageDigest.isEqual(signature, mac(TICKET_DOMAIN + kind + "." + payload))) {
        throw new Refused("this sign-in link was not made for this deployment (its data directory's keys)");
      }
    } else if (OPERATOR.equals(kind)) {
      checkOperator(subject, keyId, TICKET_DOMAIN + kind + "." + payload, signature);
    } else {
      throw new Refused("not a sign-in link of this codec server");
    }
    if (!now.isBefore(expires)) {
      throw new Refused("this sign-in link expired at " + expires + "; get a new one (onceport operator codec-link)");
    }
    redeemed.values().removeIf(until -> !now.isBefore(until));
    if (redeemed.putIfAbsent(p.path("nonce").asText(), expires) != null) {
      throw new Refused("this sign-in link was used already; get a new one (onceport operator codec-link)");
    }
    return new Who(subject, keyId, now.plus(SESSION));
  }

  private void checkOperator(String subject, String keyId, String signed, byte[] signature) throws Refused {
    if (!subject.startsWith(OPERATOR_SUBJECT) || keyId == null) {
      throw new Refused("not a sign-in link of this codec server");
    }
    String name = subject.substring(OPERATOR_SUBJECT.length());
    Optional<OperatorRegistry.Operator> op = operators.find(name);
    if (op.isEmpty() || !op.get().keyId().equals(keyId)) {
      throw new Refused("operator " + name + " with key " + keyId + " is not registered here (onceport operator list)");
    }
    if (!OperatorKey.verify(op.get().publicKey(), signed, Base64.getEncoder().encodeToString(signature))) {
      throw new Refused("the sign-in link's signature is not operator " + name + "'s");
    }
  }

  /** The cookie value for a signed-in browser. */
  public String cookie(Who who) {
    ObjectNode n = JSON.createObjectNode().put("sub", who.subject()).put("exp", who.until().getEpochSecond());
    if (who.keyId() != null) {
      n.put("kid", who.keyId());
    }
    String payload = B64.encodeToString(n.toString().getBytes(StandardCharsets.UTF_8));
    return "v1." + payload + "." + B64.encodeToString(mac(COOKIE_DOMAIN + payload));
  }

  /** Who a cookie signs in, or empty when it is missing, forged, expired or its operator is gone or rotated. */
  public Optional<Who> session(String cookie) {
    String[] parts = cookie == null ? new String[0] : cookie.split("\\.", -1);
    if (parts.length != 3 || !"v1".equals(parts[0])) {
      return Optional.empty();
    }
    try {
      if (!MessageDigest.isEqual(decode(parts[2]), mac(COOKIE_DOMAIN + parts[1]))) {
        return Optional.empty();
      }
      JsonNode p = json(parts[1]);
      Instant until = Instant.ofEpochSecond(p.path("exp").asLong());
      String subject = p.path("sub").asText();
      String keyId = p.hasNonNull("kid") ? p.get("kid").asText() : null;
      if (!clock.instant().isBefore(until)) {
        return Optional.empty();
      }
      if (subject.startsWith(OPERATOR_SUBJECT)) {
        Optional<OperatorRegistry.Operator> op = operators.find(subject.substring(OPERATOR_SUBJECT.length()));
        if (op.isEmpty() || !op.get().keyId().equals(keyId)) {
          return Optional.empty();
        }
      } else if (!LOCAL_SUBJECT.equals(subject)) {
        return Optional.empty();
      }
      return Optional.of(new Who(subject, keyId, until));
    } catch (Refused e) {
      return Optional.empty();
    }
  }

  private static String payload(String subject, String keyId, Instant expires) {
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    ObjectNode n = JSON.createObjectNode().put("sub", subject).put("nonce", B64.encodeToString(nonce)).put("exp", expires.getEpochSecond());
    if (keyId != null) {
      n.put("kid", keyId);
    }
    return B64.encodeToString(n.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode json(String b64) throws Refused {
    try {
      JsonNode n = JSON.readTree(decode(b64));
      if (n == null || !n.isObject()) {
        throw new Refused("not a sign-in link of this codec server");
      }
      return n;
    } catch (IOException e) {
      throw new Refused("not a sign-in link of this codec server");
    }
  }

  private static byte[] decode(String b64) throws Refused {
    try {
      return UNB64.decode(b64);
    } catch (IllegalArgumentException e) {
      throw new Refused("not a sign-in link of this codec server");
    }
  }

  private byte[] mac(String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
