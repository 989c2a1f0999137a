package io.onceport.app.cli;

import io.onceport.shared.codec.KeyRing;
import io.onceport.shared.codec.Payloads;
import io.temporal.common.converter.DataConverter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The data converter CLI commands use to read payloads: encrypted payloads decode with the keys of
 * the local data directory when it has any (plain payloads pass through either way).
 */
final class Codecs {
  private Codecs() {}

  /** The codec converter when {@code dataDir} holds payload keys, else Temporal's default. Never creates keys. */
  static DataConverter cliDataConverter(Path dataDir) {
    if (Files.exists(KeyRing.directory(dataDir).resolve("active"))) {
      try {
        return Payloads.displayDataConverter(KeyRing.load(dataDir)); // shows plain payloads too; encodes like a worker
      } catch (IllegalStateException e) {
        throw new CliException(e.getMessage());
      }
    }
    return DataConverter.getDefaultInstance();
  }
}
