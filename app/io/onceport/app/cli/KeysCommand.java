package io.onceport.app.cli;

import io.onceport.shared.codec.KeyRing;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code onceport keys}: the payload encryption keys under {@code <data>/keys/payload}. Never prints key bytes. */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = "Manage the payload encryption keys (AES-256-GCM) under <data>/keys/payload.",
    subcommands = {KeysCommand.Init.class, KeysCommand.Rotate.class, KeysCommand.ListKeys.class})
public final class KeysCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "init", mixinStandardHelpOptions = true, description = {
      "Create the first payload key unless one exists (idempotent); prints the active key id.",
      "Run it once before starting several workers and front ends that share the key directory."})
  static final class Init implements Callable<Integer> {
    @Spec CommandSpec spec;
    @picocli.CommandLine.Mixin DataOptions data;

    @Override
    public Integer call() {
      try {
        KeyRing ring = KeyRing.loadOrCreate(data.data);
        spec.commandLine().getOut().println("active payload key: " + ring.activeId() + " (" + ring.directory() + ")");
        return 0;
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage());
      }
    }
  }

  @Command(name = "rotate", mixinStandardHelpOptions = true, description = {
      "Create a new payload key and make it active. Old keys stay and keep decrypting old payloads.",
      "Copy the key directory to every worker and front end, then restart them so they encrypt with the new key."})
  static final class Rotate implements Callable<Integer> {
    @Spec CommandSpec spec;
    @picocli.CommandLine.Mixin DataOptions data;

    @Override
    public Integer call() {
      try {
        boolean existed = java.nio.file.Files.exists(KeyRing.directory(data.data).resolve("active"));
        KeyRing ring = KeyRing.loadOrCreate(data.data); // creates the first key when there is none
        String id = existed ? ring.rotate() : ring.activeId();
        spec.commandLine().getOut().println("active payload key: " + id + " (" + ring.directory() + ")");
        return 0;
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage());
      }
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List payload key ids; the active one is marked.")
  static final class ListKeys implements Callable<Integer> {
    @Spec CommandSpec spec;
    @picocli.CommandLine.Mixin DataOptions data;

    @Override
    public Integer call() {
      KeyRing ring;
      try {
        ring = KeyRing.load(data.data);
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage() + " (they are created by the first `onceport serve`, or by `onceport keys rotate`)");
      }
      for (String id : ring.ids()) {
        spec.commandLine().getOut().println((id.equals(ring.activeId()) ? "* " : "  ") + id);
      }
      return 0;
    }
  }
}
