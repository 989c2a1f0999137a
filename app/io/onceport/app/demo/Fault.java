package io.onceport.app.demo;

import static io.onceport.app.demo.DemoTarget.APPLY_NEVER;
import static io.onceport.app.demo.DemoTarget.DROP_AFTER_ACCEPT;
import static io.onceport.app.demo.DemoTarget.DROP_WITHOUT_ACTING;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed fault ({@link DemoTarget#FAULTS}).
 *
 * @param applyLateMillis for {@code apply-late=MS}: how long after its answer a rotation takes effect
 * @param applyNever for {@code apply-never}: the rotation is answered but never takes effect
 */
record Fault(String spec, long delayMillis, int status, Integer retryAfter, long applyLateMillis, boolean applyNever) {
  private static final Pattern DELAY_FAULT = Pattern.compile("delay=(\\d{1,7})");
  private static final Pattern STATUS_FAULT = Pattern.compile("status=([45]\\d\\d)(?:,retry-after=(\\d{1,5}))?");
  private static final Pattern APPLY_LATE_FAULT = Pattern.compile("apply-late=(\\d{1,9})");

  boolean is(String name) {
    return spec.equals(name);
  }

  /** True for the faults that only a credential rotation can show ({@code apply-late}, {@code apply-never}). */
  boolean rotationOnly() {
    return applyNever || applyLateMillis > 0;
  }

  static Fault parse(String spec) {
    if (spec == null) {
      return null;
    }
    String s = spec.trim();
    if (s.equals(DROP_AFTER_ACCEPT) || s.equals(DROP_WITHOUT_ACTING)) {
      return new Fault(s, 0, 0, null, 0, false);
    }
    if (s.equals(APPLY_NEVER)) {
      return new Fault(s, 0, 0, null, 0, true);
    }
    Matcher delay = DELAY_FAULT.matcher(s);
    if (delay.matches()) {
      return new Fault(s, Long.parseLong(delay.group(1)), 0, null, 0, false);
    }
    Matcher late = APPLY_LATE_FAULT.matcher(s);
    if (late.matches() && Long.parseLong(late.group(1)) > 0) {
      return new Fault(s, 0, 0, null, Long.parseLong(late.group(1)), false);
    }
    Matcher status = STATUS_FAULT.matcher(s);
    if (status.matches()) {
      return new Fault(s, 0, Integer.parseInt(status.group(1)),
          status.group(2) == null ? null : Integer.valueOf(status.group(2)), 0, false);
    }
    return null;
  }
}
