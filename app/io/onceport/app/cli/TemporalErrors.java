package io.onceport.app.cli;

import io.onceport.shared.codec.KeyRing;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.common.converter.DataConverterException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.payload.codec.PayloadCodecException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Says what a Temporal client failure means for an operator. The SDK's own message for a failed
 * query or update is only {@code workflowId='…', runId='…'}; the reason is several causes deep and
 * the remedy is never in it.
 */
final class TemporalErrors {
  private TemporalErrors() {}

  /**
   * The operator-facing error for a failure while reading or changing {@code what} (e.g.
   * "execution act_…"), or null when {@code e} is nothing this class recognizes.
   *
   * @param data the data directory whose payload keys the command decoded with
   */
  static CliException explain(Throwable e, String what, Path data) {
    Throwable codec = find(e, PayloadCodecException.class);
    Throwable converter = find(e, DataConverterException.class);
    if (codec != null || converter != null) {
      Path keys = KeyRing.directory(data);
      String have = Files.isDirectory(keys) ? keys + " has no key that decodes them" : keys + " does not exist";
      return new CliException("cannot decode the record of " + what + ": its payloads are encrypted and " + have
          + " (" + innermost(codec != null ? codec : converter) + "). Run the command with --data DIR naming the "
          + "deployment's data directory, whose keys/payload the workers and front ends share (or $ONCEPORT_DATA).");
    }
    if (find(e, WorkflowNotFoundException.class) != null) {
      return new CliException(what + " is closed (or no longer kept by Temporal): it cannot be changed any more; "
          + "`onceport executions show` prints its final record");
    }
    ApplicationFailure app = find(e, ApplicationFailure.class);
    if (app != null) {
      return new CliException(app.getOriginalMessage());
    }
    if (e instanceof WorkflowException) {
      return new CliException(what + ": Temporal refused the request: " + innermost(e));
    }
    return null;
  }

  /**
   * True when {@code e} is an encrypted payload this process cannot decrypt (wrong or missing
   * payload keys) — a problem of the command's {@code --data}, not of one record. A payload that
   * decrypts but does not map to the record (another version's result) is not one.
   */
  static boolean isDecodeFailure(Throwable e) {
    if (find(e, PayloadCodecException.class) != null || find(e, io.onceport.shared.codec.PayloadRefusedException.class) != null) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DataConverterException && String.valueOf(t.getMessage()).contains("binary/encrypted")) {
        return true;
      }
    }
    return false;
  }

  /** As {@link #explain}, falling back to the exception's own message. */
  static CliException explainOrWrap(RuntimeException e, String what, Path data) {
    CliException c = explain(e, what, data);
    return c != null ? c : e instanceof CliException ce ? ce : new CliException(what + ": " + innermost(e));
  }

  static String innermost(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
