package io.onceport.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Searches many places — files, directory trees, process output, Temporal histories — for a
 * secret's bytes. A PEM private key is looked for as each line of its base64 body (how it would
 * appear in a log or a copied file) and as its DER bytes (how it would appear in a binary record).
 */
public final class SecretSearch {
  private final Map<String, byte[]> places = new LinkedHashMap<>();

  /** Every regular file under {@code root}. */
  public void addTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        addFile(f);
      }
    }
  }

  public void addFile(Path file) throws IOException {
    if (Files.isRegularFile(file)) {
      places.put(file.toString(), Files.readAllBytes(file));
    }
  }

  public void add(String name, String text) {
    places.put(name, text.getBytes(StandardCharsets.UTF_8));
  }

  public void add(String name, byte[] bytes) {
    places.put(name, bytes.clone());
  }

  public int size() {
    return places.size();
  }

  /** The places that contain {@code needle} (as UTF-8). */
  public List<String> findAll(String needle) {
    return findAll(needle.getBytes(StandardCharsets.UTF_8));
  }

  /** The places that contain {@code needle}. */
  public List<String> findAll(byte[] needle) {
    List<String> found = new ArrayList<>();
    places.forEach((name, bytes) -> {
      if (indexOf(bytes, needle) >= 0) {
        found.add(name);
      }
    });
    return found;
  }

  /** What of a PEM key file would give the key away: each full base64 line of its body, and its DER bytes. */
  public static List<byte[]> pemSecrets(String pem) {
    List<String> body = pem.lines().filter(l -> !l.startsWith("-----") && !l.isBlank() && !l.contains(":")).toList();
    List<byte[]> secrets = new ArrayList<>();
    for (String line : body) {
      if (line.length() >= 40) {
        secrets.add(line.getBytes(StandardCharsets.US_ASCII));
      }
    }
    secrets.add(Base64.getMimeDecoder().decode(String.join("", body)));
    return secrets;
  }

  /** As {@link #pemSecrets(String)} for the key now in {@code file}. */
  public static List<byte[]> pemSecrets(Path file) {
    try {
      return pemSecrets(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
