package io.onceport.app.cli;

import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultEntry;
import io.onceport.activity.vault.VaultException;
import io.onceport.activity.vault.VaultLock;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code onceport vault ...}: manages the encrypted credential vault in the data directory. The
 * passphrase comes from {@code --passphrase-file}, {@value PassphraseSource#ENV}, or a prompt on
 * an interactive terminal; secrets come from stdin or {@code --from-file}. Nothing here takes a
 * secret on the command line or prints a stored one.
 */
@Command(
    name = "vault",
    mixinStandardHelpOptions = true,
    description = "Manage the encrypted credential vault (Argon2id + AES-256-GCM, <data>/vault.bin).",
    subcommands = {
      VaultCommand.Init.class,
      VaultCommand.Put.class,
      VaultCommand.ListCredentials.class,
      VaultCommand.Remove.class,
      VaultCommand.Lock.class,
      VaultCommand.Unlock.class
    })
public final class VaultCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Options every vault subcommand shares. */
  static final class VaultOptions {
    @Mixin DataOptions dataOptions;

    Path data() {
      return dataOptions.data();
    }

    @Option(
        names = "--passphrase-file",
        paramLabel = "FILE",
        description = "Read the vault passphrase from FILE (else $" + PassphraseSource.ENV + ", else a prompt on a terminal).")
    Path passphraseFile;

    char[] passphrase(boolean confirm) {
      PassphraseSource source = PassphraseSource.configured(passphraseFile, System.getenv());
      if (source != null) {
        try {
          return source.read();
        } catch (VaultException e) {
          throw new CliException(e.getMessage());
        }
      }
      Console console = System.console();
      if (console == null) {
        throw new CliException(
            "no vault passphrase: use --passphrase-file FILE or set " + PassphraseSource.ENV + " (never an argument)");
      }
      char[] first = console.readPassword("Vault passphrase: ");
      if (first == null || first.length == 0) {
        throw new CliException("empty vault passphrase");
      }
      if (confirm) {
        char[] second = console.readPassword("Repeat the passphrase: ");
        boolean same = Arrays.equals(first, second);
        if (second != null) {
          Arrays.fill(second, '\0');
        }
        if (!same) {
          Arrays.fill(first, '\0');
          throw new CliException("the passphrases do not match");
        }
      }
      return first;
    }

    Vault open() {
      char[] pass = passphrase(false);
      try {
        return Vault.open(data(), pass);
      } catch (VaultException e) {
        throw new CliException(e.getMessage());
      } finally {
        Arrays.fill(pass, '\0');
      }
    }
  }

  @Command(name = "init", mixinStandardHelpOptions = true, description = "Create an empty vault.")
  static final class Init implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin VaultOptions vault;

    @Option(names = "--argon2-memory", paramLabel = "KIB", description = "Argon2id memory in KiB (default: 65536).")
    int memoryKib = KdfParameters.DEFAULT.memoryKib();

    @Option(names = "--argon2-iterations", paramLabel = "N", description = "Argon2id passes (default: 3).")
    int iterations = KdfParameters.DEFAULT.iterations();

    @Option(names = "--argon2-parallelism", paramLabel = "N", description = "Argon2id lanes (default: 1).")
    int parallelism = KdfParameters.DEFAULT.parallelism();

    @Override
    public Integer call() {
      KdfParameters kdf;
      try {
        kdf = new KdfParameters(memoryKib, iterations, parallelism);
      } catch (IllegalArgumentException e) {
        throw new CliException(e.getMessage());
      }
      if (Vault.exists(vault.data())) {
        throw new CliException("vault already exists at " + Vault.file(vault.data()));
      }
      char[] pass = vault.passphrase(true);
      try (Vault v = Vault.create(vault.data(), pass, kdf)) {
        spec.commandLine().getOut().println("vault initialized at " + v.file() + " (" + kdf + ")");
      } catch (VaultException e) {
        throw new CliException(e.getMessage());
      } finally {
        Arrays.fill(pass, '\0');
      }
      return 0;
    }
  }

  @Command(
      name = "put",
      mixinStandardHelpOptions = true,
      description = {
        "Store a credential under NAME (replacing one of that name).",
        "The secret is read from --from-file, else from stdin (a prompt on a terminal); never from an argument."
      })
  static final class Put implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin VaultOptions vault;

    @Parameters(paramLabel = "NAME", description = "Reference name used by contracts (credential: NAME).")
    String name;

    @Option(
        names = "--type",
        required = true,
        paramLabel = "TYPE",
        converter = TypeConverter.class,
        description = "bearer | basic | header | ssh-key")
    Credential.Type type;

    @Option(names = "--header-name", paramLabel = "H", description = "For --type header: the header to set.")
    String headerName;

    @Option(names = "--username", paramLabel = "U", description = "For --type basic: the user name.")
    String username;

    @Option(names = "--from-file", paramLabel = "FILE", description = "Read the secret from FILE instead of stdin.")
    Path fromFile;

    @Option(names = "--approve-each-use", description = "Every use of this credential waits for an operator's approval.")
    boolean approveEachUse;

    @Override
    public Integer call() {
      if (type == Credential.Type.HEADER && headerName == null) {
        throw new CliException("--type header needs --header-name");
      }
      if (type != Credential.Type.HEADER && headerName != null) {
        throw new CliException("--header-name applies only to --type header");
      }
      if (type == Credential.Type.BASIC && username == null) {
        throw new CliException("--type basic needs --username");
      }
      if (type != Credential.Type.BASIC && username != null) {
        throw new CliException("--username applies only to --type basic");
      }
      try (Vault v = vault.open()) {
        String secret = readSecret();
        boolean replaced = v.put(new Credential(name, type, headerName, username, secret), approveEachUse);
        spec.commandLine()
            .getOut()
            .println(
                (replaced ? "replaced" : "stored")
                    + " credential "
                    + name
                    + " ("
                    + type.wireName()
                    + (approveEachUse ? ", approve-each-use" : "")
                    + ")");
      } catch (VaultException e) {
        throw new CliException(e.getMessage());
      }
      return 0;
    }

    private String readSecret() {
      String text;
      if (fromFile != null) {
        try {
          text = Files.readString(fromFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new CliException("cannot read " + fromFile + ": " + e.getMessage());
        }
      } else if (System.console() != null && type != Credential.Type.SSH_KEY) {
        char[] typed = System.console().readPassword("Secret for %s: ", name);
        text = typed == null ? "" : new String(typed);
        if (typed != null) {
          Arrays.fill(typed, '\0');
        }
      } else {
        text = readStdin(System.in);
      }
      // A key file keeps its final newline; a token piped with echo loses it.
      String secret = type == Credential.Type.SSH_KEY ? text : PassphraseSource.stripNewline(text);
      if (secret.isBlank()) {
        throw new CliException("empty secret: pipe it on stdin or use --from-file FILE");
      }
      return secret;
    }

    private static String readStdin(InputStream in) {
      try {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new CliException("cannot read the secret from stdin: " + e.getMessage());
      }
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List credential names, types and flags (never secrets).")
  static final class ListCredentials implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin VaultOptions vault;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (Vault v = vault.open()) {
        if (v.entries().isEmpty()) {
          out.println("no credentials");
        } else {
          printTable(out, v);
        }
      }
      if (VaultLock.isLocked(vault.data())) {
        out.println("(the vault is locked for running gateways)");
      }
      return 0;
    }

    private static void printTable(PrintWriter out, Vault v) {
      int width = Math.max(4, v.entries().stream().mapToInt(e -> e.name().length()).max().orElse(4));
      String row = "%-" + width + "s  %-8s  %s";
      out.println(String.format(Locale.ROOT, row, "NAME", "TYPE", "FLAGS"));
      for (VaultEntry e : v.entries()) {
        String flags = e.approveEachUse() ? "approve-each-use" : "-";
        out.println(String.format(Locale.ROOT, row, e.name(), e.type().wireName(), flags));
      }
    }
  }

  @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove a credential.")
  static final class Remove implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin VaultOptions vault;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public Integer call() {
      try (Vault v = vault.open()) {
        v.remove(name);
        spec.commandLine().getOut().println("removed credential " + name);
      } catch (VaultException e) {
        throw new CliException(e.getMessage());
      }
      return 0;
    }
  }

  @Command(
      name = "lock",
      mixinStandardHelpOptions = true,
      description = {
        "Lock the vault: running gateways on this data directory stop using credentials at their next call",
        "and executions waiting for an approval are rejected. Needs no passphrase."
      })
  static final class Lock implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin VaultOptions vault;

    @Override
    public Integer call() {
      if (!Vault.exists(vault.data())) {
        throw new CliException("vault is not initialized: no " + Vault.file(vault.data()) + " (run `onceport vault init`)");
      }
      try {
        VaultLock.lock(vault.data(), "cli:" + System.getProperty("user.name", "operator"), Instant.now());
      } catch (VaultException e) {
        throw new CliException(e.getMessage());
      }
      spec.commandLine().getOut().println("vault locked: running gateways refuse credential use until `onceport vault unlock`");
      return 0;
    }
  }

  @Command(
      name = "unlock",
      mixinStandardHelpOptions = true,
      description = "Unlock the vault for running gateways (checks the passphrase first).")
  static final class Unlock implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin VaultOptions vault;

    @Override
    public Integer call() {
      vault.open().close(); // proves the passphrase before the marker goes
      boolean was = VaultLock.unlock(vault.data());
      spec.commandLine().getOut().println(was ? "vault unlocked" : "vault is not locked");
      return 0;
    }
  }

  static final class TypeConverter implements ITypeConverter<Credential.Type> {
    @Override
    public Credential.Type convert(String value) {
      for (Credential.Type t : Credential.Type.values()) {
        if (t.wireName().equals(value)) {
          return t;
        }
      }
      throw new picocli.CommandLine.TypeConversionException(
          "unknown credential type '" + value + "' (bearer, basic, header, ssh-key)");
    }
  }
}
