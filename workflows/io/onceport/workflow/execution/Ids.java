package io.onceport.workflow.execution;

import java.util.Random;

/**
 * Typed identifiers: {@code act_<ULID>} for executions and {@code res_<ULID>} for result
 * references. Deterministic given the time and random source, so workflow code passes
 * {@code Workflow.currentTimeMillis()} and {@code Workflow.newRandom()}.
 */
public final class Ids {
  private static final char[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

  private Ids() {}

  public static String executionId(long millis, Random random) {
    return "act_" + ulid(millis, random);
  }

  public static String resultReference(long millis, Random random) {
    return "res_" + ulid(millis, random);
  }

  /** A ULID: 48 bits of milliseconds then 80 random bits, Crockford base32, 26 characters. */
  public static String ulid(long millis, Random random) {
    if (millis < 0 || millis >= (1L << 48)) {
      throw new IllegalArgumentException("Invalid ULID time: " + millis);
    }
    char[] out = new char[26];
    long time = millis;
    for (int i = 9; i >= 0; i--) {
      out[i] = CROCKFORD[(int) (time & 31)];
      time >>>= 5;
    }
    for (int i = 10; i < 26; i++) {
      out[i] = CROCKFORD[random.nextInt(32)];
    }
    return new String(out);
  }

  public static boolean isExecutionId(String value) {
    return value != null && EXECUTION_ID.matcher(value).matches();
  }

  private static final java.util.regex.Pattern EXECUTION_ID = java.util.regex.Pattern.compile("act_[0-9A-HJKMNP-TV-Z]{26}");
}
