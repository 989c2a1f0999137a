package io.onceport.shared.temporal.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A Temporal API key, sent as {@code authorization: Bearer <key>} on every call: from the
 * environment ({@code TEMPORAL_API_KEY}), a {@code temporal.toml} profile, or a file
 * ({@code --api-key-file}) — never from the command line, where {@code ps} shows it to every user.
 * A file is read again when it changes (checked at most once a second: the supplier runs on every
 * gRPC call, and one {@code stat} a second is nothing beside a call's network round trip), so a
 * rotated key is used without a restart. {@link #toString()} names the source, never the key.
 */
public final class ApiKey implements Supplier<String> {
  private static final long RECHECK_NANOS = 1_000_000_000L;
  private final String value;
  private final PemSource file;
  private final String source;
  private volatile Loaded loaded;

  private record Loaded(String key, Object stamp, long checkedAt) {}

  private ApiKey(String value, PemSource file, String source) {
    this.value = value;
    this.file = file;
    this.source = Objects.requireNonNull(source, "source == null");
  }

  /** A key given as a value (an environment variable, a profile's {@code api_key}). */
  public static ApiKey of(String key, String source) {
    Objects.requireNonNull(key, "key == null");
    if (key.isBlank()) {
      throw new IllegalArgumentException(source + " is empty");
    }
    return new ApiKey(key.strip(), null, source);
  }

  /** A key read from {@code file} (surrounding white space and a trailing newline dropped); read now, to fail early. */
  public static ApiKey fromFile(Path file, String source) {
    ApiKey key = new ApiKey(null, PemSource.file(file, source), source);
    key.get();
    return key;
  }

  /** The setting it came from: {@code TEMPORAL_API_KEY}, {@code --api-key-file}, a profile. */
  public String source() {
    return source;
  }

  @Override
  public String get() {
    if (value != null) {
      return value;
    }
    Loaded l = loaded;
    long now = System.nanoTime();
    if (l != null && now - l.checkedAt() < RECHECK_NANOS) {
      return l.key();
    }
    Object stamp = file.stamp();
    if (l != null && l.stamp().equals(stamp)) {
      loaded = new Loaded(l.key(), stamp, now);
      return l.key();
    }
    String key;
    try {
      key = new String(file.read(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      if (l != null) {
        return l.key(); // mid-rotation (file briefly absent): keep the last key rather than send none
      }
      throw new UncheckedIOException(e.getMessage(), e);
    }
    if (key.isEmpty()) {
      if (l != null) {
        return l.key();
      }
      throw new IllegalArgumentException("the API key file " + file.path() + " (" + source + ") is empty");
    }
    loaded = new Loaded(key, stamp, now);
    return key;
  }

  @Override
  public String toString() {
    return "API key from " + (file != null ? file.path() + " (" + source + ")" : source);
  }
}
