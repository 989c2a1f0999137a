package io.onceport.frontend.fingerprint;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Workflow ids of tool executions. The id is what makes a duplicate call attach instead of
 * dispatching again ({@code WorkflowIdConflictPolicy.USE_EXISTING}), so it is a pure function of
 * the fingerprint, or of the actor's explicit intent key.
 */
public final class WorkflowIds {
  public static final String FINGERPRINT_PREFIX = "onceport-fp-";
  public static final String INTENT_KEY_PREFIX = "onceport-key-";
  private static final Pattern FINGERPRINT = Pattern.compile("hmac-sha256:[0-9a-f]{64}");

  private WorkflowIds() {}

  /** {@code onceport-fp-<64 hex>} for a fingerprint {@code hmac-sha256:<64 hex>}. */
  public static String forFingerprint(String fingerprint) {
    Objects.requireNonNull(fingerprint, "fingerprint == null");
    if (!FINGERPRINT.matcher(fingerprint).matches()) {
      throw new IllegalArgumentException("Invalid fingerprint: " + fingerprint);
    }
    return FINGERPRINT_PREFIX + fingerprint.substring(FingerprintKey.PREFIX.length());
  }

  /**
   * {@code onceport-key-<64 hex>}: HMAC of {@code "intent-key\n" + actor + "\n" + intentKey}. Keys
   * are scoped per actor (two agents choosing the same key get different executions), and keyed so
   * the id reveals nothing about the client's key.
   */
  public static String forIntentKey(FingerprintKey key, String actor, String intentKey) {
    Objects.requireNonNull(key, "key == null");
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(intentKey, "intentKey == null");
    String problem = IntentKeys.problem(intentKey);
    if (problem != null) {
      throw new IllegalArgumentException("Invalid intent key: " + problem);
    }
    String mac = key.hmac("intent-key\n" + actor + "\n" + intentKey);
    return INTENT_KEY_PREFIX + mac.substring(FingerprintKey.PREFIX.length());
  }
}
