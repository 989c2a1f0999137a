package io.onceport.shared.cli;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name a person typed to run Onceport, for the commands hints tell them to run next. A hint is
 * pasted: it must name the program as it was invoked ({@code bin/onceport} from a clone, {@code
 * onceport} when installed on {@code PATH}), or the paste fails with "command not found".
 * {@code bin/onceport} passes the name it was invoked as in {@value #ENV}; a JVM started any other
 * way (the container image, tests) says {@code onceport}.
 */
public final class CommandName {
  /** Set by {@code bin/onceport} to its {@code $0} (or {@code onceport} when found on {@code PATH}). */
  public static final String ENV = "ONCEPORT_INVOKED_AS";
  /** The name when nothing says otherwise. */
  public static final String DEFAULT = "onceport";
  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_./~+-]{1,200}");
  /** {@code onceport} as a command word in a hint: at the start or after a space, backtick, colon or paren. */
  private static final Pattern IN_TEXT = Pattern.compile("(^|[\\s`(:'\"])onceport (?=[a-z])");

  /** A bare {@code onceport executions resolve act_…} (as a workflow's record says it), without its required flags. */
  private static final Pattern BARE_RESOLVE = Pattern.compile("onceport executions resolve (act_[0-9A-Za-z]+)(?![0-9A-Za-z]| --)");

  private CommandName() {}

  /**
   * A hint made where the name and the flags were not at hand (a workflow's record), as a person
   * can paste it: the invoked name, and {@code executions resolve} with its required flags (an
   * outcome and {@code --reason}; pasted bare it printed a 30-line usage).
   */
  public static String hint(String text) {
    return hint(text, get());
  }

  static String hint(String text, String name) {
    if (text == null) {
      return null;
    }
    String complete = BARE_RESOLVE.matcher(text).replaceAll(m -> Matcher.quoteReplacement("`onceport executions resolve "
        + m.group(1) + " --completed --reason 'checked the target'` (after checking the target; --failed if it did not "
        + "happen, --redispatch if it provably did not run)"));
    return localize(complete, name);
  }

  /** The invoked name; a value that is not a plain path (spaces, quotes, shell characters) is ignored. */
  public static String get() {
    return of(System.getenv(ENV));
  }

  static String of(String invokedAs) {
    return invokedAs != null && SAFE.matcher(invokedAs).matches() ? invokedAs : DEFAULT;
  }

  /** {@code args} as a command to run: the invoked name, a space, {@code args}. */
  public static String command(String args) {
    return get() + " " + Objects.requireNonNull(args, "args == null");
  }

  /**
   * {@code text} with every {@code onceport SUBCOMMAND} hint written with the invoked name: for
   * messages made where the name is not known (a workflow's record, which must not read the
   * environment), shown by a process that knows it.
   */
  public static String localize(String text) {
    return localize(text, get());
  }

  static String localize(String text, String name) {
    if (text == null || name.equals(DEFAULT)) {
      return text;
    }
    return IN_TEXT.matcher(text).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + name + " "));
  }
}
