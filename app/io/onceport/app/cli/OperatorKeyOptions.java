package io.onceport.app.cli;

import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * Which operator key signs a decision: {@code --key-file FILE}, else {@code $ONCEPORT_OPERATOR_KEY},
 * else {@code <key dir>/<NAME>.key} for {@code --operator NAME} (alias {@code --by}; default
 * {@code $ONCEPORT_OPERATOR}, else the OS user). The key directory is {@code --key-dir}, default
 * {@code $XDG_CONFIG_HOME/onceport/operators} or {@code ~/.config/onceport/operators}: the
 * operator's own configuration, never a worker's data directory.
 */
final class OperatorKeyOptions {
  static final String KEY_ENV = "ONCEPORT_OPERATOR_KEY";
  static final String NAME_ENV = "ONCEPORT_OPERATOR";

  @Option(names = {"--operator", "--by"}, paramLabel = "NAME",
      description = "The operator deciding, as registered with `onceport operator add` (default: $ONCEPORT_OPERATOR, else the OS user); "
          + "signs with NAME's key from the key directory.")
  String operator;

  @Option(names = "--key-file", paramLabel = "FILE",
      description = "The operator's private key file (default: $ONCEPORT_OPERATOR_KEY, else <key dir>/NAME.key).")
  Path keyFile;

  @Option(names = "--key-dir", paramLabel = "DIR",
      description = "Where operator keys live (default: $XDG_CONFIG_HOME/onceport/operators or ~/.config/onceport/operators).")
  Path keyDir;

  @Option(names = "--expires", paramLabel = "DURATION", defaultValue = "PT10M",
      description = "How long the signed decision stays valid (default: ${DEFAULT-VALUE}; at most PT24H).")
  Duration expires;

  /** The default key directory of this user. */
  static Path defaultKeyDir() {
    String xdg = System.getenv("XDG_CONFIG_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
    return base.resolve("onceport").resolve("operators");
  }

  Path keyDir() {
    return keyDir != null ? keyDir : defaultKeyDir();
  }

  /** The operator name asked for: {@code --operator}, {@code $ONCEPORT_OPERATOR}, else the OS user. */
  String name() {
    if (operator != null && !operator.isBlank()) {
      return operator;
    }
    String env = System.getenv(NAME_ENV);
    return env != null && !env.isBlank() ? env : System.getProperty("user.name");
  }

  Duration validity() {
    if (expires.isNegative() || expires.isZero()) {
      throw new CliException("--expires must be positive");
    }
    if (expires.compareTo(OperatorActivitiesImpl.MAX_VALIDITY) > 0) {
      throw new CliException("--expires must be at most " + OperatorActivitiesImpl.MAX_VALIDITY + " (a decision is for now, not a standing grant)");
    }
    return expires;
  }

  /** Loads the signing key, or fails with a line saying where it looked and how to get one. */
  OperatorKey load() {
    Path file = keyFile;
    String source = "--key-file";
    if (file == null) {
      String env = System.getenv(KEY_ENV);
      if (env != null && !env.isBlank()) {
        file = Path.of(env);
        source = "$" + KEY_ENV;
      }
    }
    if (file == null) {
      String name = name();
      try {
        OperatorKey.checkName(name);
      } catch (IllegalArgumentException e) {
        throw new CliException("no operator key: " + e.getMessage() + "; pass --operator NAME or --key-file FILE");
      }
      file = keyDir().resolve(name + ".key");
      if (!Files.exists(file)) {
        throw new CliException("no operator key for " + name + " (looked for " + file + "): decisions are signed with an operator key; "
            + "create one with `onceport operator add " + name + "`, or pass --operator NAME, --key-file FILE or set " + KEY_ENV);
      }
      source = "--operator " + name;
    }
    OperatorKey key;
    try {
      key = OperatorKey.load(file);
    } catch (IOException e) {
      throw new CliException(e.getMessage() + " (from " + source + ")");
    }
    if (operator != null && !operator.isBlank() && !operator.equals(key.operator())) {
      throw new CliException("--operator " + operator + " does not match the key in " + file + ", which is " + key.operator() + "'s");
    }
    return key;
  }
}
