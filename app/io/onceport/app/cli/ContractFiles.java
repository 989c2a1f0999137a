package io.onceport.app.cli;

import io.onceport.frontend.contract.ContractLoadException;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.shared.text.InertText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes imported contracts so that a bad one never lands: every file is written into a scratch
 * directory and loaded there with the loader {@code serve} uses; only when all load are they moved
 * into the target directory (each by an atomic rename from a temp file beside it).
 */
final class ContractFiles {
  record File(String name, String yaml, String note) {}

  private ContractFiles() {}

  static void writeChecked(List<File> files, Path out, boolean force, PrintWriter o) {
    if (files.isEmpty()) {
      throw new CliException("nothing to import");
    }
    try {
      Files.createDirectories(out);
      for (File f : files) {
        if (!force && Files.exists(out.resolve(f.name()))) {
          throw new CliException(out.resolve(f.name()) + " exists; not overwritten (--force to replace it)");
        }
      }
      Path scratch = Files.createTempDirectory("onceport-import");
      try {
        for (File f : files) {
          Files.writeString(scratch.resolve(f.name()), f.yaml());
        }
        try {
          new ContractLoader().load(scratch);
        } catch (ContractLoadException e) {
          throw new CliException("the imported contracts do not load (a bug in the importer, or a schema the loader refuses):\n  "
              + String.join("\n  ", e.errors()));
        }
        for (File f : files) {
          Path tmp = Files.createTempFile(out, "." + f.name(), ".tmp");
          Files.writeString(tmp, f.yaml());
          Files.move(tmp, out.resolve(f.name()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          o.println(InertText.of("wrote " + out.resolve(f.name()) + "  " + f.note()));
        }
      } finally {
        try (Stream<Path> s = Files.walk(scratch)) {
          s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    } catch (IOException e) {
      throw new CliException("cannot write contracts into " + out + ": " + e.getMessage());
    }
  }
}
