package io.onceport.activity.journal;

/**
 * The journal cannot make an entry durable, or refuses to open a segment it cannot trust (corrupt,
 * rolled back, held by another process). Callers that promise durability must fail closed.
 */
public class JournalException extends RuntimeException {
  public JournalException(String message) {
    super(message);
  }

  public JournalException(String message, Throwable cause) {
    super(message, cause);
  }
}
