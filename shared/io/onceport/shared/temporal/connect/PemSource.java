package io.onceport.shared.temporal.connect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * PEM text for TLS: a file ({@code TEMPORAL_TLS_CLIENT_CERT_PATH}, {@code --tls-cert}, …), read
 * again whenever it changes on disk, or inline data ({@code TEMPORAL_TLS_CLIENT_CERT_DATA}), which
 * never changes. {@link #toString()} names the file or the setting, never the content: a client
 * key's PEM is a secret.
 */
public final class PemSource {
  private final Path path;
  private final byte[] data;
  private final String source;

  private PemSource(Path path, byte[] data, String source) {
    this.path = path;
    this.data = data;
    this.source = Objects.requireNonNull(source, "source == null");
  }

  public static PemSource file(Path path, String source) {
    return new PemSource(Objects.requireNonNull(path, "path == null"), null, source);
  }

  public static PemSource data(byte[] data, String source) {
    Objects.requireNonNull(data, "data == null");
    return new PemSource(null, data.clone(), source);
  }

  /** The file, or null for inline data. */
  public Path path() {
    return path;
  }

  /** The setting it came from. */
  public String source() {
    return source;
  }

  /** The PEM text now: the file's current content, or the inline data. */
  byte[] read() throws IOException {
    if (path == null) {
      return data.clone();
    }
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new IOException("cannot read " + path + " (" + source + "): " + e.getMessage(), e);
    }
  }

  /**
   * What changes when the file is replaced or rewritten (modification time, size and file key — a
   * rename over it, as cert-manager and kubelet do, gives a new inode); constant for inline data.
   */
  Object stamp() {
    if (path == null) {
      return "inline";
    }
    try {
      BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
      return a.lastModifiedTime().toMillis() + "/" + a.size() + "/" + a.fileKey();
    } catch (IOException e) {
      return "unreadable: " + e.getMessage();
    }
  }

  @Override
  public String toString() {
    return path != null ? path + " (" + source + ")" : source;
  }
}
