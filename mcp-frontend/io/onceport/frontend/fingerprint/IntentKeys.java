package io.onceport.frontend.fingerprint;

/**
 * What an explicit intent key ({@code Idempotency-Key} header or {@code _meta["onceport/intent"]})
 * may be: 1 to {@value #MAX_LENGTH} characters (code points), none of them a control character.
 * The key names a durable execution and ends up in its record, logs and the Temporal UI, so a key
 * that would be truncated, broken across lines or made invisible there is refused up front.
 */
public final class IntentKeys {
  public static final int MAX_LENGTH = 255;

  private IntentKeys() {}

  /** Why {@code key} cannot be an intent key, or null when it can. */
  public static String problem(String key) {
    if (key == null || key.isEmpty()) {
      return "it is empty";
    }
    int length = key.codePointCount(0, key.length());
    if (length > MAX_LENGTH) {
      return "it is " + length + " characters long; the limit is " + MAX_LENGTH;
    }
    for (int i = 0; i < key.length(); ) {
      int cp = key.codePointAt(i);
      if (Character.isISOControl(cp)) {
        return String.format("it contains the control character U+%04X; use printable characters only", cp);
      }
      i += Character.charCount(cp);
    }
    return null;
  }
}
