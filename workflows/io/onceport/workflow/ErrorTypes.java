package io.onceport.workflow;

/**
 * The string types of every {@code ApplicationFailure} Onceport raises. Retry options name these
 * constants, so a failure type and the retry rule that treats it live in one vocabulary.
 */
public final class ErrorTypes {
  /** Nothing reached the target (connection refused, DNS, TLS before the request): safe to retry. */
  public static final String NOT_SENT = "NotSent";
  /** Request bytes left this process and no response was observed: never blindly retried. */
  public static final String OUTCOME_UNKNOWN = "OutcomeUnknown";
  /** The target host key did not match the pinned key: nothing ran, and retrying cannot help. */
  public static final String HOST_KEY_MISMATCH = "HostKeyMismatch";
  /** The dispatch journal entry could not be made durable: the dispatch did not happen. */
  public static final String JOURNAL_UNAVAILABLE = "JournalUnavailable";
  /**
   * The journal already holds the {@code dispatched} entry of this execution and attempt: the send
   * was made before (only a replayed or reset workflow history asks for it again). Nothing was sent
   * now; what the earlier send did is unknown to this run.
   */
  public static final String SENT_BEFORE = "SentBefore";
  /** A credential reference could not be resolved from the vault. */
  public static final String CREDENTIAL_UNAVAILABLE = "CredentialUnavailable";
  /** The request could not be built from the contract and arguments (bad template, bad URL). */
  public static final String INVALID_REQUEST = "InvalidRequest";
  /** An intent key was reused with a different fingerprint (the Idempotency-Key draft's 422). */
  public static final String INTENT_KEY_MISMATCH = "IntentKeyMismatch";
  /** An operator command does not apply to the execution's current state. */
  public static final String INVALID_TRANSITION = "InvalidTransition";
  /**
   * An operator decision was refused: unsigned, not signed by a registered operator's key, bound to
   * another subject, fingerprint or decision, outside its validity period, or already applied.
   */
  public static final String DECISION_REFUSED = "DecisionRefused";
  /**
   * An attach reached a run past its late-arrival tail (or attach window): not admitted, nothing
   * recorded. The run closes once the retries of the attaches it took can no longer come; the call
   * then starts the intent's next run.
   */
  public static final String RUN_CLOSING = "RunClosing";

  private ErrorTypes() {}
}
