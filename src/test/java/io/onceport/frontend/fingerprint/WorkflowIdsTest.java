package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class WorkflowIdsTest {
  private static final FingerprintKey KEY = FingerprintKey.of(filled((byte) 7));

  @Test
  void fingerprintWorkflowIdIsThePrefixedHex() {
    String hex = "ab".repeat(32);
    assertEquals("onceport-fp-" + hex, WorkflowIds.forFingerprint("hmac-sha256:" + hex));
  }

  @Test
  void malformedFingerprintIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WorkflowIds.forFingerprint("sha256:00"));
    assertEquals("Invalid fingerprint: sha256:00", e.getMessage());
  }

  @Test
  void intentKeyIdIsKeyedAndScopedPerActor() {
    String a = WorkflowIds.forIntentKey(KEY, "agent:a", "deploy-42");
    assertTrue(a.matches("onceport-key-[0-9a-f]{64}"), a);
    assertEquals(a, WorkflowIds.forIntentKey(KEY, "agent:a", "deploy-42"));
    assertEquals("onceport-key-" + KEY.hmac("intent-key\nagent:a\ndeploy-42").substring(12), a);
    assertNotEquals(a, WorkflowIds.forIntentKey(KEY, "agent:b", "deploy-42"));
    assertNotEquals(a, WorkflowIds.forIntentKey(KEY, "agent:a", "deploy-43"));
    assertNotEquals(a, WorkflowIds.forIntentKey(FingerprintKey.of(filled((byte) 8)), "agent:a", "deploy-42"));
    assertEquals(a, new Fingerprinter(KEY).intentKeyWorkflowId("agent:a", "deploy-42"));
  }

  @Test
  void emptyIntentKeyIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WorkflowIds.forIntentKey(KEY, "agent:a", ""));
    assertEquals("Invalid intent key: it is empty", e.getMessage());
  }

  @Test
  void intentKeyOver255CharactersOrWithAControlCharacterIsRefused() {
    assertEquals("Invalid intent key: it is 256 characters long; the limit is 255", assertThrows(IllegalArgumentException.class,
        () -> WorkflowIds.forIntentKey(KEY, "agent:a", "k".repeat(256))).getMessage());
    assertEquals("Invalid intent key: it contains the control character U+000A; use printable characters only",
        assertThrows(IllegalArgumentException.class, () -> WorkflowIds.forIntentKey(KEY, "agent:a", "deploy\n42")).getMessage());
    // 255 characters is fine, also when each is a surrogate pair (510 UTF-16 units)
    assertTrue(WorkflowIds.forIntentKey(KEY, "agent:a", "\uD83D\uDE00".repeat(255)).startsWith("onceport-key-"));
    assertNull(IntentKeys.problem("k".repeat(255)));
  }

  static byte[] filled(byte b) {
    byte[] bytes = new byte[32];
    Arrays.fill(bytes, b);
    return bytes;
  }
}
