package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    assertEquals("Invalid intent key: must be 1-255 characters", e.getMessage());
  }

  static byte[] filled(byte b) {
    byte[] bytes = new byte[32];
    Arrays.fill(bytes, b);
    return bytes;
  }
}
