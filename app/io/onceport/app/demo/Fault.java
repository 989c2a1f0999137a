package io.onceport.app.demo;

import static io.onceport.app.demo.DemoTarget.DROP_AFTER_ACCEPT;
import static io.onceport.app.demo.DemoTarget.DROP_WITHOUT_ACTING;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A parsed fault ({@link DemoTarget#FAULTS}). */
record Fault(String spec, long delayMillis, int status, Integer retryAfter) {
  private static final Pattern DELAY_FAULT = Pattern.compile("delay=(\\d{1,7})");
  private static final Pattern STATUS_FAULT = Pattern.compile("status=([45]\\d\\d)(?:,retry-after=(\\d{1,5}))?");

  boolean is(String name) {
    return spec.equals(name);
  }

  static Fault parse(String spec) {
    if (spec == null) {
      return null;
    }
    String s = spec.trim();
    if (s.equals(DROP_AFTER_ACCEPT) || s.equals(DROP_WITHOUT_ACTING)) {
      return new Fault(s, 0, 0, null);
    }
    Matcher delay = DELAY_FAULT.matcher(s);
    if (delay.matches()) {
      return new Fault(s, Long.parseLong(delay.group(1)), 0, null);
    }
    Matcher status = STATUS_FAULT.matcher(s);
    if (status.matches()) {
      return new Fault(s, 0, Integer.parseInt(status.group(1)),
          status.group(2) == null ? null : Integer.valueOf(status.group(2)));
    }
    return null;
  }
}
