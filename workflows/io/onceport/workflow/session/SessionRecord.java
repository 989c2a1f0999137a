package io.onceport.workflow.session;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The session record returned by the {@code session} query and shown by {@code onceport sessions
 * show}. Times are ISO-8601 strings (workflow time).
 *
 * @param authorization the operator's decision, or null while undecided
 * @param waiting workflow ids of executions still waiting for a decision
 * @param executions workflow ids of every execution that ever waited on this session (at most
 *     {@value AgentSessionWorkflowImpl#MAX_RECORDED_EXECUTIONS})
 */
public record SessionRecord(
    String sessionId,
    String actor,
    String clientInfo,
    String protocolVersion,
    String remoteAddress,
    String startedAt,
    String endedAt,
    String endReason,
    Authorization authorization,
    List<String> waiting,
    List<String> executions,
    long version) {
  public SessionRecord {
    Objects.requireNonNull(sessionId, "sessionId == null");
    Objects.requireNonNull(actor, "actor == null");
    waiting = waiting == null ? List.of() : List.copyOf(waiting);
    executions = executions == null ? List.of() : List.copyOf(executions);
  }

  /**
   * {@code authorized} or {@code denied}, who decided, when, and why.
   *
   * @param until when an authorization ends (a grant: {@code sessions authorize --agent … --for …}),
   *     or null when it lasts as long as the session
   */
  public record Authorization(String decision, String by, String at, String reason, String until) {
    public Authorization(String decision, String by, String at, String reason) {
      this(decision, by, at, reason, null);
    }
  }

  /** True when an operator authorized the session (and did not deny it since) and it has not ended. */
  @JsonIgnore
  public boolean isAuthorized() {
    return endedAt == null && authorization != null && "authorized".equals(authorization.decision());
  }

  /** As {@link #isAuthorized()}, and the authorization has not run out at {@code now} (a grant's end). */
  public boolean isAuthorizedAt(Instant now) {
    return isAuthorized() && (authorization.until() == null || now.isBefore(Instant.parse(authorization.until())));
  }

  /** {@code authorized}, {@code denied} or {@code pending}, and {@code , ended} once it ended. */
  @JsonIgnore
  public String status() {
    String decided = authorization == null ? "pending" : authorization.until() == null || !"authorized".equals(authorization.decision())
        ? authorization.decision() : authorization.decision() + " until " + authorization.until();
    return endedAt == null ? decided : decided + ", ended";
  }
}
