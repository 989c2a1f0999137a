package io.onceport.activity.vault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where a process gets the vault passphrase: a file ({@code --passphrase-file}) or the environment
 * variable {@value #ENV}. Never argv, which other users can read from the process table. Each
 * {@link #read()} returns a fresh array the caller wipes; the server re-reads its source when the
 * vault is unlocked again after a lock. {@link #toString()} names the source, never the value.
 */
public interface PassphraseSource {
  String ENV = "ONCEPORT_VAULT_PASSPHRASE";

  /** A fresh copy of the passphrase; throws {@link VaultException} if the source is unusable. */
  char[] read();

  static PassphraseSource fromFile(Path file) {
    Objects.requireNonNull(file, "file == null");
    return new PassphraseSource() {
      @Override
      public char[] read() {
        String text;
        try {
          text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new VaultException(VaultException.Kind.IO, "cannot read passphrase file " + file + ": " + e.getMessage(), e);
        }
        char[] pass = stripNewline(text).toCharArray();
        if (pass.length == 0) {
          throw new VaultException(VaultException.Kind.INVALID, "passphrase file " + file + " is empty");
        }
        return pass;
      }

      @Override
      public String toString() {
        return "passphrase file " + file;
      }
    };
  }

  static PassphraseSource fromEnvironment(Map<String, String> env) {
    Objects.requireNonNull(env, "env == null");
    return new PassphraseSource() {
      @Override
      public char[] read() {
        String value = env.get(ENV);
        if (value == null || value.isEmpty()) {
          throw new VaultException(VaultException.Kind.INVALID, "environment variable " + ENV + " is not set");
        }
        return value.toCharArray();
      }

      @Override
      public String toString() {
        return "environment variable " + ENV;
      }
    };
  }

  /**
   * The configured source: the file if given, else the environment variable if set, else null
   * (no passphrase configured; the CLI may then prompt).
   */
  static PassphraseSource configured(Path passphraseFile, Map<String, String> env) {
    if (passphraseFile != null) {
      return fromFile(passphraseFile);
    }
    String value = env.get(ENV);
    return value == null || value.isEmpty() ? null : fromEnvironment(env);
  }

  /** Strips one trailing line break: {@code echo pass > file} must give "pass". */
  static String stripNewline(String text) {
    if (text.endsWith("\r\n")) {
      return text.substring(0, text.length() - 2);
    }
    if (text.endsWith("\n")) {
      return text.substring(0, text.length() - 1);
    }
    return text;
  }
}
