package io.onceport.workflow.contract;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How an execution whose contract says {@code attach_window: until_verified} learns whether its
 * effect took place, and how long it keeps its identity meanwhile (the design essay: "a credential
 * rotation may require a durable fingerprint until you can verify which credential is active").
 * After the outcome is known the execution stays attachable and checks on a schedule — the first
 * check {@code every} after the outcome, then each interval doubled, at most {@link
 * #maxInterval()}, so at most about {@link #MAX_CHECKS} checks — until an answer matches {@code verifiedWhen} (verified: identical calls keep
 * attaching {@code verifiedWindow} longer, then one is a new intent), matches {@code
 * notAppliedWhen} (not applied: a fact for the replay policy), or {@code giveUpAfter} passed (then
 * an operator decides).
 *
 * <p>The check is a read: for an http tool a {@code GET} or {@code HEAD} of {@code url} (the tool's
 * credential and templates, {@code {{execution_id}}} and argument placeholders); for an mcp tool a
 * call of the upstream's read-only {@code tool} with {@code arguments} (a JSON template), whose
 * {@code structuredContent} the pointers read; for an ssh tool a {@code command} (an argv template,
 * rendered and quoted as the tool's own command) run over the tool's SSH connection, whose exit
 * status the conditions' {@code status} lists and whose stdout, parsed as JSON, the pointers read.
 * Onceport cannot check that such a command is read-only: the contract author asserts it, as they
 * assert that a GET of their URL changes nothing.
 *
 * @param method http: {@code GET} or {@code HEAD}; null for mcp
 * @param url http: the URL template; null for mcp
 * @param tool mcp: the upstream's read-only tool; null for http
 * @param arguments mcp: its arguments template as JSON text ({@code {}} when absent); null for http
 * @param command ssh: the read-only command's argv template; null for http and mcp
 * @param notAppliedWhen null: no answer proves the effect absent (checks go on until verified or
 *     given up)
 */
public record VerifySpec(
    String method,
    String url,
    String tool,
    String arguments,
    List<String> command,
    Duration every,
    Duration giveUpAfter,
    Duration verifiedWindow,
    VerifyCondition verifiedWhen,
    VerifyCondition notAppliedWhen) {
  /** {@code every} by default. */
  public static final Duration DEFAULT_EVERY = Duration.ofSeconds(30);
  /** The shortest {@code every}: a verification is a read of someone else's service, not a busy loop. */
  public static final Duration MIN_EVERY = Duration.ofSeconds(1);
  /** {@code give_up_after} by default. */
  public static final Duration DEFAULT_GIVE_UP_AFTER = Duration.ofDays(7);
  /**
   * The longest interval between two checks (unless {@code every}, or {@code give_up_after} shared
   * out over {@link #MAX_CHECKS} checks, is longer): the backoff's cap. A week of waiting is then
   * about 170 checks.
   */
  public static final Duration MAX_INTERVAL = Duration.ofHours(1);
  /**
   * The most checks a schedule makes (plus the doublings before the cap): each costs the run about
   * ten history events, so a whole schedule stays near 2,000 events, below the few thousand at which
   * Temporal suggests continuing as new and far below its 51,200-event limit, however long {@code
   * give_up_after} is — the run never needs to continue as new for its checks.
   */
  public static final int MAX_CHECKS = 200;

  public VerifySpec {
    every = every == null ? DEFAULT_EVERY : every;
    giveUpAfter = giveUpAfter == null ? DEFAULT_GIVE_UP_AFTER : giveUpAfter;
    verifiedWindow = verifiedWindow == null ? Duration.ZERO : verifiedWindow;
    Objects.requireNonNull(verifiedWhen, "verifiedWhen == null");
    if (every.compareTo(MIN_EVERY) < 0) {
      throw new IllegalArgumentException("Invalid every: " + every + " (at least " + MIN_EVERY + ")");
    }
    if (giveUpAfter.compareTo(every) < 0) {
      throw new IllegalArgumentException("Invalid give_up_after: " + giveUpAfter + " is shorter than every (" + every + ")");
    }
    if (verifiedWindow.isNegative()) {
      throw new IllegalArgumentException("Invalid verified_window: " + verifiedWindow);
    }
    if (verifiedWhen.equals(notAppliedWhen)) {
      throw new IllegalArgumentException("Invalid verify: verified_when and not_applied_when are the same condition");
    }
    boolean http = method != null || url != null;
    boolean mcp = tool != null;
    boolean ssh = command != null;
    if ((http ? 1 : 0) + (mcp ? 1 : 0) + (ssh ? 1 : 0) != 1) {
      throw new IllegalArgumentException("Invalid verify: give method and url (http), tool (mcp) or command (ssh)");
    }
    if (ssh) {
      command = List.copyOf(command);
      if (command.isEmpty()) {
        throw new IllegalArgumentException("Invalid verify: command is empty");
      }
    }
    if (http && (method == null || url == null)) {
      throw new IllegalArgumentException("Invalid verify: an http check needs method and url");
    }
    arguments = mcp && arguments == null ? "{}" : arguments;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The backoff's cap: {@link #MAX_INTERVAL}, or {@code every} if that is longer, or {@code
   * give_up_after / MAX_CHECKS} if that is longer still (so a schedule makes at most about {@link
   * #MAX_CHECKS} checks).
   */
  public Duration maxInterval() {
    Duration shared = giveUpAfter.dividedBy(MAX_CHECKS);
    Duration cap = every.compareTo(MAX_INTERVAL) > 0 ? every : MAX_INTERVAL;
    return shared.compareTo(cap) > 0 ? shared : cap;
  }

  /**
   * The wait before check {@code n} (from 1): {@code every} before the first, then doubled each
   * time, at most {@link #maxInterval()}.
   */
  public Duration intervalBefore(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("Invalid check number: " + n);
    }
    int doublings = Math.min(n - 1, 30);
    long millis = every.toMillis();
    long cap = maxInterval().toMillis();
    for (int i = 0; i < doublings && millis < cap; i++) {
      millis *= 2;
    }
    return Duration.ofMillis(Math.min(millis, cap));
  }

  /**
   * What the check reads, for messages: {@code GET https://…/active}, {@code tool get_key} or
   * {@code command [cat, /etc/app/key.json]} (templates, before any argument is put in).
   */
  public String target() {
    return tool != null ? "tool " + tool : command != null ? "command " + command : method + " " + url;
  }

  /** Fields with defaults; {@link #build} checks them as the record does. */
  public static final class Builder {
    private String method;
    private String url;
    private String tool;
    private String arguments;
    private List<String> command;
    private Duration every;
    private Duration giveUpAfter;
    private Duration verifiedWindow;
    private VerifyCondition verifiedWhen;
    private VerifyCondition notAppliedWhen;

    private Builder() {}

    /** An http check: {@code GET} or {@code HEAD} of {@code url}. */
    public Builder setHttp(String method, String url) {
      this.method = method;
      this.url = url;
      return this;
    }

    /** An mcp check: the upstream's read-only {@code tool} with {@code arguments} (JSON text, or null for {@code {}}). */
    public Builder setMcp(String tool, String arguments) {
      this.tool = tool;
      this.arguments = arguments;
      return this;
    }

    /** An ssh check: the read-only {@code command} (an argv template) run over the tool's SSH connection. */
    public Builder setSsh(List<String> command) {
      this.command = command;
      return this;
    }

    public Builder setEvery(Duration every) {
      this.every = every;
      return this;
    }

    public Builder setGiveUpAfter(Duration giveUpAfter) {
      this.giveUpAfter = giveUpAfter;
      return this;
    }

    public Builder setVerifiedWindow(Duration verifiedWindow) {
      this.verifiedWindow = verifiedWindow;
      return this;
    }

    public Builder setVerifiedWhen(VerifyCondition verifiedWhen) {
      this.verifiedWhen = verifiedWhen;
      return this;
    }

    public Builder setNotAppliedWhen(VerifyCondition notAppliedWhen) {
      this.notAppliedWhen = notAppliedWhen;
      return this;
    }

    public VerifySpec build() {
      return new VerifySpec(method, url, tool, arguments, command, every, giveUpAfter, verifiedWindow, verifiedWhen, notAppliedWhen);
    }
  }
}
