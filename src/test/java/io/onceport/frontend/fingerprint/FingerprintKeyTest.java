package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FingerprintKeyTest {
  @TempDir Path data;

  @Test
  void keyIsCreatedOnFirstUseWithMode0600AndReusedAfterwards() throws Exception {
    FingerprintKey first = FingerprintKey.loadOrCreate(data);
    Path file = data.resolve("keys/fingerprint.key");
    assertEquals(file, first.file());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    assertEquals(32, Files.size(file));
    try (var files = Files.list(file.getParent())) {
      assertEquals(1, files.count(), "no temp file left behind");
    }
    FingerprintKey second = FingerprintKey.loadOrCreate(data);
    assertEquals(first.hmac("x"), second.hmac("x"));
    assertNotEquals(first.hmac("x"), FingerprintKey.loadOrCreate(data.resolve("other")).hmac("x"));
  }

  @Test
  void hmacIsHmacSha256OfTheKeyFileBytes() throws Exception {
    FingerprintKey key = FingerprintKey.loadOrCreate(data);
    byte[] raw = Files.readAllBytes(data.resolve("keys/fingerprint.key"));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(raw, "HmacSHA256"));
    String expected = "hmac-sha256:" + HexFormat.of().formatHex(mac.doFinal("abc".getBytes(StandardCharsets.UTF_8)));
    assertEquals(expected, key.hmac("abc"));
    assertTrue(key.hmac("abc").matches("hmac-sha256:[0-9a-f]{64}"));
  }

  @Test
  void keyReadableByOthersIsRefusedWithTheFix() throws Exception {
    FingerprintKey.loadOrCreate(data);
    Path file = data.resolve("keys/fingerprint.key");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    IOException e = assertThrows(IOException.class, () -> FingerprintKey.loadOrCreate(data));
    assertEquals("fingerprint key " + file + " is accessible by group or others (rw-r--r--); run: chmod 600 " + file,
        e.getMessage());
  }

  @Test
  void truncatedKeyIsRefused() throws Exception {
    Path file = data.resolve("keys/fingerprint.key");
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[5]);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    IOException e = assertThrows(IOException.class, () -> FingerprintKey.loadOrCreate(data));
    assertEquals("fingerprint key " + file + " is 5 bytes, expected 32 (corrupt? restore it from backup: a new key "
        + "changes every fingerprint)", e.getMessage());
  }

  @Test
  void keyOfRawBytesRejectsWrongLength() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FingerprintKey.of(new byte[31]));
    assertEquals("Invalid key length: 31 (expected 32)", e.getMessage());
    byte[] bytes = new byte[32];
    FingerprintKey k = FingerprintKey.of(bytes);
    bytes[0] = 1; // the key copied its input
    assertEquals(FingerprintKey.of(new byte[32]).hmac("a"), k.hmac("a"));
  }

  @Test
  void processesStartingTogetherAgreeOnOneKey() throws Exception {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      java.util.List<java.util.concurrent.Future<String>> results = new java.util.ArrayList<>();
      for (int i = 0; i < 8; i++) {
        results.add(pool.submit(() -> {
          start.await();
          return FingerprintKey.loadOrCreate(data).hmac("x");
        }));
      }
      start.countDown();
      java.util.Set<String> distinct = new java.util.HashSet<>();
      for (var f : results) {
        distinct.add(f.get(10, java.util.concurrent.TimeUnit.SECONDS));
      }
      assertEquals(1, distinct.size());
      try (var files = Files.list(data.resolve("keys"))) {
        assertEquals(1, files.count(), "no temp file left behind");
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
