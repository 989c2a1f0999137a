package io.onceport.activity.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Failures decided before any connection is attempted (port 9 on loopback is never contacted). */
class SshChannelValidationTest {
  private final SshChannel channel = new SshChannel();

  private static SshSpec spec(String hostKey, String credential, String keyFile) {
    return new SshSpec("127.0.0.1", 9, "deploy", hostKey, credential, keyFile, List.of("true"), null, false, null, null, 0);
  }

  private ApplicationFailure dispatchFails(SshSpec spec, RecordingContext context) {
    ApplicationFailure e = assertThrows(ApplicationFailure.class,
        () -> channel.dispatch(SshFixture.request(spec, "{}", SshFixture.newExecutionId()), context));
    assertTrue(e.isNonRetryable());
    assertEquals(0, context.beforeSend.get());
    return e;
  }

  @Test
  void hostKeyThatIsNotASha256FingerprintIsAnInvalidRequest() {
    for (String pin : List.of("", "MD5:aa:bb", "ssh-ed25519 AAAAC3Nz", "SHA256:", "SHA256:==")) {
      ApplicationFailure e = dispatchFails(spec(pin, null, "/k"), new RecordingContext());
      assertEquals(ErrorTypes.INVALID_REQUEST, e.getType());
      assertEquals("host_key of 127.0.0.1:9 must be an OpenSSH SHA256 fingerprint (SHA256:...)", e.getOriginalMessage());
    }
  }

  @Test
  void contractWithNeitherCredentialNorKeyFileIsAnInvalidRequest() {
    ApplicationFailure e = dispatchFails(spec("SHA256:abc", null, null), new RecordingContext());

    assertEquals(ErrorTypes.INVALID_REQUEST, e.getType());
    assertEquals("ssh contract for 127.0.0.1:9 names neither a credential nor a key_file", e.getOriginalMessage());
  }

  @Test
  void credentialOfAnotherTypeIsUnavailable() {
    RecordingContext context = new RecordingContext(
        Map.of("api", new Credential("api", Credential.Type.BEARER, null, null, "tok")));

    ApplicationFailure e = dispatchFails(spec("SHA256:abc", "api", null), context);

    assertEquals(ErrorTypes.CREDENTIAL_UNAVAILABLE, e.getType());
    assertEquals("credential api is not an ssh-key credential", e.getOriginalMessage());
  }

  @Test
  void missingKeyFileIsUnavailable() {
    ApplicationFailure e = dispatchFails(spec("SHA256:abc", null, "/nonexistent/id_ed25519"), new RecordingContext());

    assertEquals(ErrorTypes.CREDENTIAL_UNAVAILABLE, e.getType());
    assertEquals("key_file /nonexistent/id_ed25519 is not readable", e.getOriginalMessage());
  }

  @Test
  void nonPositiveTimeoutsAreRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SshChannel(Duration.ZERO, Duration.ofMinutes(1)));
    assertEquals("Invalid connect timeout: PT0S", e.getMessage());
  }
}
