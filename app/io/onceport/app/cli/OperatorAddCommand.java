package io.onceport.app.cli;

import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.shared.cli.CommandName;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code onceport operator add [NAME]}: makes an operator's key pair, or registers a public key made
 * elsewhere, or — when the operator's key file already exists (a second clone, a wiped data dir) —
 * registers that key, so that {@code add} and {@code rotate} never send a person from one to the other.
 */
@Command(name = "add", mixinStandardHelpOptions = true,
    description = {"Create an operator: an Ed25519 key pair whose private key is written to NAME's key file (0600)",
        "and whose public key is registered in <data>/operators.json, where workers read it.",
        "With --public-key (printed by `operator keygen` on the operator's machine) only the public key is registered."})
public final class OperatorAddCommand implements Runnable {
  @Spec CommandSpec spec;
  @Mixin DataOptions data;
  @Mixin OperatorCommand.KeyLocation location;

  @Parameters(paramLabel = "NAME", arity = "0..1",
      description = "Operator name, e.g. carol; recorded as the decider exactly as given (default: $ONCEPORT_OPERATOR, else the OS user).")
  String name;

  @Option(names = "--public-key", paramLabel = "opk1:…",
      description = "Register this public key (from `onceport operator keygen NAME`) instead of making a key pair here.")
  String publicKey;

  @Override
  public void run() {
    name = name != null ? name : defaultName();
    try {
      OperatorKey.checkName(name);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage() + " (pass the operator's NAME)");
    }
    OperatorRegistry registry = new OperatorRegistry(data.data());
    Path file = location.file(name, data.data());
    if (publicKey == null && Files.exists(file)) {
      registerExisting(registry, file);
      return;
    }
    registry.find(name).ifPresent(o -> {
      throw new CliException("operator " + name + " is already registered (key " + o.keyId() + "); a new key: "
          + CommandName.command("operator rotate " + name));
    });
    if (publicKey != null) {
      registerPublicKey(registry);
      return;
    }
    OperatorKey key = OperatorKey.generate(name);
    try {
      key.write(file, false);
    } catch (FileAlreadyExistsException e) {
      throw new CliException(file + " appeared while adding " + name + "; run " + CommandName.command("operator add " + name)
          + " again to register it");
    } catch (IOException e) {
      throw new CliException("cannot write " + file + ": " + e.getMessage(), e);
    }
    try {
      registry.add(key);
    } catch (IOException | IllegalArgumentException e) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException ignored) {
        // the message below names the file
      }
      throw new CliException("cannot register " + name + " in " + registry.file() + ": " + e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println("operator " + name + " registered in " + registry.file() + " (key " + key.keyId() + ")");
    out.println("private key: " + file + " (0600; keep it with " + name + ": whoever holds it decides as " + name + ")");
    out.flush();
  }

  /** A public key made on the operator's own machine ({@code operator keygen}). */
  private void registerPublicKey(OperatorRegistry registry) {
    OperatorRegistry.Registration r = OperatorCommand.registration(name, publicKey);
    try {
      registry.add(r);
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException("cannot register " + name + " in " + registry.file() + ": " + e.getMessage());
    }
    spec.commandLine().getOut().println("operator " + name + " registered in " + registry.file() + " (key " + r.keyId() + ")");
  }

  /**
   * The operator's key file exists (a second clone, a wiped data dir): register its public half
   * here instead of refusing — the key is the operator's, the data dir only lists who may decide.
   */
  private void registerExisting(OperatorRegistry registry, Path file) {
    OperatorKey key;
    try {
      key = OperatorKey.load(file);
    } catch (IOException e) {
      throw new CliException(e.getMessage() + " (" + file + " exists but cannot be read as " + name + "'s key; move it away, "
          + "or choose another --key-file)");
    }
    if (!key.operator().equals(name)) {
      throw new CliException(file + " is " + key.operator() + "'s key, not " + name + "'s; choose --key-file for " + name);
    }
    Optional<OperatorRegistry.Operator> registered = registry.find(name);
    if (registered.isPresent() && registered.get().keyId().equals(key.keyId())) {
      spec.commandLine().getOut().println("operator " + name + " is already registered in " + registry.file() + " with the key in "
          + file + " (key " + key.keyId() + "); nothing to do");
      return;
    }
    if (registered.isPresent()) {
      throw new CliException("operator " + name + " is registered with another key (" + registered.get().keyId() + ") than " + file
          + " (" + key.keyId() + "); to register this one instead: " + CommandName.command("operator rotate " + name
          + " --public-key " + OperatorRegistry.Registration.of(key).encode()));
    }
    try {
      registry.add(key);
    } catch (IOException | IllegalArgumentException e) {
      throw new CliException("cannot register " + name + " in " + registry.file() + ": " + e.getMessage());
    }
    spec.commandLine().getOut().println("operator " + name + " registered in " + registry.file() + " with the existing key " + file
        + " (key " + key.keyId() + ")");
  }

  /** The operator name when none is given: {@code $ONCEPORT_OPERATOR}, else the OS user (no {@code $USER} needed). */
  static String defaultName() {
    String env = System.getenv(OperatorKeyOptions.NAME_ENV);
    return env != null && !env.isBlank() ? env : System.getProperty("user.name");
  }
}
