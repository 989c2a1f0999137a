package io.onceport.activity.vault;

import io.onceport.workflow.ErrorTypes;
import io.temporal.failure.ApplicationFailure;

/**
 * Resolves a contract's credential reference at dispatch time, so secrets never travel in
 * workflow inputs or histories.
 *
 * <p>Throws a non-retryable {@code ApplicationFailure} of type
 * {@link ErrorTypes#CREDENTIAL_UNAVAILABLE} when the reference cannot be resolved: nothing has been
 * sent yet, and retrying cannot conjure a missing secret. Messages name the reference, never the
 * secret.
 */
public interface CredentialResolver {
  /** Resolves nothing: every reference is unavailable. */
  CredentialResolver NONE =
      reference -> {
        throw ApplicationFailure.newNonRetryableFailure(
            "Credential '" + reference + "' is unavailable: no vault is configured",
            ErrorTypes.CREDENTIAL_UNAVAILABLE);
      };

  Credential resolve(String reference);
}
