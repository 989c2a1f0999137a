package io.onceport.frontend.gateway;

import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchResult;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The fast path for {@code read_only} tools: a read changes nothing, so a lost answer is simply
 * asked again, and it needs no execution identity — no fingerprint, no workflow, no attach, no
 * delivery record. The MCP layer asks {@link #plan} first; when it answers, the call never touches
 * the execution layer or the duplicate-suppression machinery. When it declines (empty), the call
 * takes the durable path like any other: what it declines and why is the implementation's
 * documented rule.
 */
public interface ReadPath {
  /**
   * The read, validated and authorized, ready to send; or empty when the call takes the durable
   * path (not a read, or it needs something only an execution gives).
   *
   * @throws GatewayException INVALID_ARGUMENTS for arguments the contract's schema refuses
   */
  Optional<Planned> plan(ToolCall call);

  /** A read about to be sent. */
  interface Planned {
    ToolContract contract();

    /** A correlation id for logs and the journal ({@code read_…}); not an execution identity. */
    String readId();

    /** What already happened to the read, in order (each one line): validation, authorization. */
    List<String> steps();

    /**
     * Sends the read (with the contract's own retries for a read) and returns what the target
     * answered or why there is no answer; {@code onStep} hears each further step as it happens.
     */
    Answer send(Consumer<String> onStep);
  }

  /**
   * The outcome of a read.
   *
   * @param result what the target answered, or null when it gave no answer (then {@code message}
   *     says why; a read that got no answer changed nothing and may be called again)
   * @param message one plain sentence for the agent
   */
  record Answer(String readId, DispatchResult result, String message) {
    public Answer {
      Objects.requireNonNull(readId, "readId == null");
      Objects.requireNonNull(message, "message == null");
    }

    /** The target answered with a 2xx (or exit status 0). */
    public boolean completed() {
      return result != null && result.succeeded();
    }
  }
}
