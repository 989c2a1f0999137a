package io.onceport.app.investigate;

import io.onceport.activity.journal.JournalReader.Record;
import io.onceport.workflow.journal.JournaledSends;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Answers the five duplicate-call questions for one intent (an execution id or a fingerprint) in
 * order, from activity journal entries alone: the sequence, not the final count. Reads the detail
 * fields the ToolExecution workflow writes: {@code accepted} (actor, tool), {@code call}
 * (retry, jsonrpc_id, session, run, intent_key), {@code authorized}/{@code rejected} (rule,
 * reason), {@code dispatched}, {@code outcome} (outcome, target_status, exit_status, reason),
 * {@code outcome_unknown}, {@code not_sent}, {@code delivered}/{@code not_delivered} (call, detail).
 */
public final class Investigation {
  /** One answered question: a short key, the question, and the answer in plain language. */
  public record Answer(String key, String question, String answer) {}

  /** The whole report; {@code sequence} is every matching entry in order. */
  public record Report(String query, List<String> executionIds, Set<String> fingerprints,
      List<Record> sequence, List<Answer> answers, String verdict, List<String> warnings) {}

  private Investigation() {}

  public static Report investigate(String query, List<Record> all, List<String> warnings) {
    Objects.requireNonNull(query, "query == null");
    List<Record> matching = all.stream()
        .filter(r -> query.equals(r.executionId()) || query.equals(r.fingerprint()))
        .sorted(Comparator.comparing((Record r) -> r.at() == null ? r.time() : r.at())
            .thenComparing(Record::time).thenComparing(Record::journal).thenComparingLong(Record::seq))
        .toList();
    List<String> executions = matching.stream().map(Record::executionId).distinct().toList();
    Set<String> fingerprints = matching.stream().map(Record::fingerprint)
        .collect(Collectors.toCollection(LinkedHashSet::new));
    List<Answer> answers = new ArrayList<>();
    answers.add(new Answer("processes", "Did one agent process or several send the calls?", processes(matching)));
    String first = executions.isEmpty() ? null : executions.get(0);
    List<Record> firstExec = of(matching, first);
    answers.add(new Answer("dispatch", "Did the first call pass authorization and reach dispatch?",
        dispatch(firstExec)));
    answers.add(new Answer("target", "Did the target answer (status / exit code)?", target(firstExec)));
    answers.add(new Answer("delivery", "Did result delivery fail after the target completed?", delivery(firstExec)));
    answers.add(new Answer("second_call",
        "Did a second call attach to the first execution, carry an idempotency key, or create a fresh attempt?",
        secondCall(matching, executions)));
    answers.add(new Answer("resets", "Was an execution reset (temporal workflow reset), and what did each run send?",
        resets(matching, executions)));
    return new Report(query, executions, fingerprints, matching, answers, verdict(matching, executions),
        List.copyOf(warnings));
  }

  private static List<Record> of(List<Record> rs, String executionId) {
    return rs.stream().filter(r -> Objects.equals(r.executionId(), executionId)).toList();
  }

  private static List<Record> with(List<Record> rs, String transition) {
    return rs.stream().filter(r -> transition.equals(r.transition())).toList();
  }

  private static String str(Record r, String field) {
    Object v = r.detail().get(field);
    return v == null ? null : String.valueOf(v);
  }

  private static String processes(List<Record> rs) {
    Set<String> senders = new LinkedHashSet<>();
    for (Record r : with(rs, "call")) {
      String session = str(r, "session");
      String run = str(r, "run");
      if (session != null || run != null) {
        senders.add("session " + (session == null ? "?" : session) + (run == null ? "" : " run " + run));
      }
    }
    Set<String> actors = new LinkedHashSet<>();
    for (Record r : with(rs, "accepted")) {
      if (str(r, "actor") != null) {
        actors.add(str(r, "actor"));
      }
    }
    String actorText = actors.isEmpty() ? "" : " (actor " + String.join(", ", actors) + ")";
    if (senders.isEmpty()) {
      return "unknown: no call carried a session or run id" + actorText;
    }
    if (senders.size() == 1) {
      return "one agent process: " + senders.iterator().next() + actorText;
    }
    return senders.size() + " distinct agent processes: " + String.join("; ", senders) + actorText;
  }

  private static String dispatch(List<Record> rs) {
    if (rs.isEmpty()) {
      return "no entries";
    }
    List<Record> rejected = with(rs, "rejected");
    String auth;
    if (!rejected.isEmpty() && with(rs, "dispatched").isEmpty()) {
      Record r = rejected.get(0);
      return "no: rejected (rule " + str(r, "rule") + (str(r, "reason") == null ? "" : ": " + str(r, "reason"))
          + "); never dispatched";
    } else if (!rejected.isEmpty()) {
      // a reset run's ladder refused it after an earlier run had dispatched it
      Record r = rejected.get(0);
      auth = "dispatched by an earlier run, then a reset run's authorization was refused (rule " + str(r, "rule")
          + (str(r, "reason") == null ? "" : ": " + str(r, "reason")) + ")";
    } else if (!with(rs, "authorized").isEmpty()) {
      auth = "authorized (rule " + str(with(rs, "authorized").get(0), "rule") + ")";
    } else if (!with(rs, "awaiting_approval").isEmpty() || !with(rs, "awaiting_session_authorization").isEmpty()) {
      auth = "waiting for approval";
    } else {
      auth = "no authorization recorded";
    }
    int dispatches = with(rs, "dispatched").size();
    int notSent = with(rs, "not_sent").size();
    String d = dispatches == 0 ? "not dispatched"
        : dispatches == 1 ? "dispatched once" : "dispatched " + dispatches + " times";
    return auth + ", " + d + (notSent > 0 ? " (" + notSent + " attempt(s) provably not sent)" : "");
  }

  private static String target(List<Record> rs) {
    List<Record> outcomes = with(rs, "outcome");
    if (!outcomes.isEmpty()) {
      Record o = outcomes.get(outcomes.size() - 1);
      String answer = str(o, "target_status") != null ? "HTTP " + str(o, "target_status")
          : str(o, "exit_status") != null ? "exit status " + str(o, "exit_status") : null;
      return answer != null ? "yes: " + answer + " (" + str(o, "outcome") + ")"
          : "no answer: " + str(o, "outcome") + (str(o, "reason") == null ? "" : " (" + str(o, "reason") + ")");
    }
    if (!with(rs, "outcome_unknown").isEmpty()) {
      Record u = with(rs, "outcome_unknown").get(0);
      String review = with(rs, "review_resolved").isEmpty() ? "" : "; review resolved "
          + str(with(rs, "review_resolved").get(0), "decision");
      return "unknown: the request may have reached the target but no answer was observed ("
          + str(u, "reason") + ")" + review;
    }
    return with(rs, "dispatched").isEmpty() ? "not applicable: never dispatched" : "no outcome recorded yet";
  }

  private static String delivery(List<Record> rs) {
    List<Record> failed = with(rs, "not_delivered");
    List<Record> delivered = with(rs, "delivered");
    boolean completed = with(rs, "outcome").stream().anyMatch(r -> "completed".equals(str(r, "outcome")));
    if (!failed.isEmpty()) {
      Record f = failed.get(0);
      String s = "yes: the result was not delivered to call " + str(f, "call")
          + (str(f, "detail") == null ? "" : " (" + str(f, "detail") + ")")
          + (completed ? " after the target completed" : "");
      return delivered.isEmpty() ? s : s + "; later delivered to call " + str(delivered.get(0), "call");
    }
    if (!delivered.isEmpty()) {
      return "no: delivered to call " + str(delivered.get(0), "call");
    }
    return "no delivery recorded";
  }

  /**
   * The session of an execution's first call, when an attached call came from a different one:
   * then the "retry" was another agent process (or session) asking for the same action, attached
   * because the intent scope (the actor, when no run id is sent) made the two calls one intent.
   */
  private static String otherSessionThanFirst(List<Record> rs, Record attached) {
    String session = str(attached, "session");
    if (session == null) {
      return null;
    }
    return with(rs, "call").stream()
        .filter(c -> Objects.equals(c.executionId(), attached.executionId()) && !"true".equals(str(c, "retry")))
        .map(c -> str(c, "session")).filter(Objects::nonNull).findFirst()
        .filter(first -> !first.equals(session)).orElse(null);
  }

  private static String scopeNote(Record attached) {
    return str(attached, "run") == null
        ? "no run id, so the intent scope is the actor; send a run id (_meta onceport/run or header Onceport-Run) "
            + "or an intent key to keep separate agent runs apart"
        : "same run id " + str(attached, "run");
  }

  private static String secondCall(List<Record> rs, List<String> executions) {
    List<String> parts = new ArrayList<>();
    for (Record c : with(rs, "call")) {
      if (!"true".equals(str(c, "retry"))) {
        continue;
      }
      String key = str(c, "intent_key") == null ? "no idempotency key" : "idempotency key " + str(c, "intent_key");
      String first = otherSessionThanFirst(rs, c);
      if (first != null) {
        parts.add("call " + callName(c) + " attached to " + c.executionId() + " as a retry from another session: "
            + str(c, "session") + ", the first call's was " + first + " (a reconnected client, or another process of the "
            + "same actor; " + key + ", execution " + str(c, "state") + "; " + scopeNote(c) + ")");
        continue;
      }
      parts.add("call " + callName(c) + " attached to " + c.executionId() + " as a retry ("
          + key + ", execution " + str(c, "state") + ")");
    }
    if (executions.size() > 1) {
      parts.add("new intent: " + executions.size() + " executions for these arguments ("
          + String.join(", ", executions) + "), each sent on its own");
    }
    return parts.isEmpty() ? "no second call recorded" : String.join("; ", parts);
  }

  /** " (reset 2 times, the send was not repeated)" for the verdict; empty without a reset. */
  private static String resetNote(List<Record> rs, List<String> executions) {
    int resets = 0;
    int afterReset = 0;
    for (String id : executions) {
      ResetReport.Execution x = ResetReport.of(id, rs);
      resets += x.resets();
      afterReset += x.sendsAfterReset();
    }
    if (resets == 0) {
      return "";
    }
    String times = resets + (resets == 1 ? " time" : " times");
    return afterReset == 0 ? " (reset " + times + ", the send was not repeated)"
        : " (reset " + times + "; " + afterReset + " of them by reset runs, under the same key)";
  }

  private static String resets(List<Record> rs, List<String> executions) {
    List<String> parts = new ArrayList<>();
    for (String id : executions) {
      ResetReport.Execution x = ResetReport.of(id, rs);
      if (x.resets() > 0) {
        parts.add((executions.size() > 1 ? id + ": " : "") + "yes: " + ResetReport.describe(x));
      }
    }
    return parts.isEmpty() ? "no reset recorded" : String.join("; ", parts);
  }

  private static String callName(Record c) {
    String id = str(c, "jsonrpc_id");
    return id != null ? id : "#" + c.attempt();
  }

  private static String verdict(List<Record> rs, List<String> executions) {
    if (executions.isEmpty()) {
      return "no journal entries for this intent";
    }
    int dispatches = with(rs, "dispatched").size();
    String dispatchText = dispatches == 0 ? "no dispatch" : dispatches == 1 ? "one dispatch" : dispatches + " dispatches";
    dispatchText += resetNote(rs, executions);
    StringBuilder v = new StringBuilder();
    if (executions.size() == 1) {
      v.append("one execution, ").append(dispatchText);
    } else {
      Map<String, Set<String>> sessions = new LinkedHashMap<>();
      for (Record c : with(rs, "call")) {
        sessions.computeIfAbsent(c.executionId(), k -> new LinkedHashSet<>())
            .add(String.valueOf(str(c, "session")));
      }
      long distinctSessions = sessions.values().stream().flatMap(Set::stream).distinct().count();
      v.append(executions.size()).append(" executions, ").append(dispatchText)
          .append(distinctSessions > 1 ? " from " + distinctSessions + " distinct sessions (new intents, not retries)"
              : " from one session (new intents, not retries)");
    }
    List<Record> attached = with(rs, "call").stream().filter(c -> "true".equals(str(c, "retry"))).toList();
    List<String> retries = attached.stream().map(Investigation::callName).toList();
    if (!retries.isEmpty()) {
      v.append("; call").append(retries.size() > 1 ? "s " : " ").append(String.join(", ", retries))
          .append(retries.size() > 1 ? " attached as retries" : " attached as a retry");
    }
    for (Record c : attached) {
      String first = otherSessionThanFirst(rs, c);
      if (first != null) {
        v.append(" (call ").append(callName(c)).append(" from session ").append(str(c, "session"))
            .append(", not the first call's ").append(first).append(": a reconnected client, or another process of the same actor; ")
            .append(str(c, "run") == null ? "without a run id the intent scope is the actor" : "both sent run id " + str(c, "run"))
            .append(")");
      }
    }
    boolean completed = with(rs, "outcome").stream().anyMatch(r -> "completed".equals(str(r, "outcome")));
    if (completed && !with(rs, "not_delivered").isEmpty()) {
      v.append(with(rs, "delivered").isEmpty() ? "; completed, result not delivered"
          : "; completed, first delivery failed, delivered later");
    }
    if (!with(rs, "outcome_unknown").isEmpty() && with(rs, "outcome").isEmpty()) {
      v.append("; outcome unknown: check the target before retrying");
    }
    v.append(VerificationEvents.note(with(rs, "verification_check"), !with(rs, "verified").isEmpty(),
        !with(rs, "not_applied").isEmpty(), !with(rs, "verification_given_up").isEmpty()));
    return v.toString();
  }

  /**
   * The execution record from Temporal as journal-shaped entries (journal "temporal"), so an
   * investigation can combine both sources: the journal of the worker that dispatched may be on
   * another host, while Temporal holds every execution's record.
   */
  public static List<Record> fromExecutionRecord(io.onceport.workflow.execution.ExecutionRecord x) {
    List<Record> out = new ArrayList<>();
    java.util.function.BiConsumer<String, Map<String, Object>> add = new java.util.function.BiConsumer<>() {
      int seq;
      @Override
      public void accept(String transitionAndAttempt, Map<String, Object> detail) {
        String[] parts = transitionAndAttempt.split("#");
        String at = detail.containsKey("_at") ? String.valueOf(detail.get("_at")) : x.acceptedAt();
        Map<String, Object> d = new java.util.LinkedHashMap<>(detail);
        d.remove("_at");
        d.values().removeIf(Objects::isNull);
        out.add(new Record("temporal", ++seq, at, x.executionId(), x.fingerprint(), parts[0], Integer.parseInt(parts[1]), at, d));
      }
    };
    add.accept("accepted#1", mapOf("_at", x.acceptedAt(), "actor", x.actor(), "tool", x.tool(), "target", x.target()));
    int i = 0;
    for (io.onceport.workflow.execution.AttachedCall c : x.calls()) {
      i++;
      add.accept("call#" + i, mapOf("_at", c.receivedAt(), "retry", c.retry(), "jsonrpc_id", c.jsonRpcId(), "session", c.sessionId(),
          "run", c.runId(), "intent_key", c.intentKey(), "client", c.clientInfo(), "state", c.stateAtAttach()));
      if (c.delivery() != null) {
        add.accept(c.delivery() + "#" + i, mapOf("_at", c.deliveryAt(), "call", c.callId()));
      }
    }
    if (x.authorization() != null) {
      String decision = x.authorization().decision();
      add.accept(("rejected".equals(decision) ? "rejected" : "authorized".equals(decision) ? "authorized" : decision) + "#1",
          mapOf("_at", x.authorization().at(), "rule", x.authorization().rule(), "by", x.authorization().by(),
              "reason", x.authorization().reason()));
    }
    addReset(x, add);
    // A send in flight (dispatched, outcome pending) is on the record only once it ended: count it too.
    boolean inFlight = x.state() == io.onceport.workflow.execution.ExecutionState.DISPATCHED
        && x.outcome() == io.onceport.workflow.execution.Outcome.PENDING;
    for (int k = 1; k <= x.dispatchAttempts() + (inFlight ? 1 : 0); k++) {
      add.accept("dispatched#" + k, mapOf("_at", x.dispatchedAt()));
    }
    if (!x.statusChecks().isEmpty() || x.outcome() == io.onceport.workflow.execution.Outcome.UNKNOWN) {
      add.accept("outcome_unknown#1", mapOf("_at", x.dispatchedAt(), "reason", x.message()));
    }
    if (x.completedAt() != null) {
      add.accept("outcome#" + Math.max(1, x.dispatchAttempts()), mapOf("_at", x.completedAt(), "outcome", x.outcome().wireName(),
          "target_status", x.targetStatus(), "exit_status", x.exitStatus(), "result_reference", x.resultReference()));
    }
    VerificationEvents.addDecisions(x, add);
    return out;
  }

  /** A reset run's record: the reset, and the sends every run made as the journal proved them, each with its run. */
  private static void addReset(io.onceport.workflow.execution.ExecutionRecord x,
      java.util.function.BiConsumer<String, Map<String, Object>> add) {
    if (x.reset() == null) {
      return;
    }
    add.accept("reset#" + x.reset().number(), mapOf("_at", x.reset().at(), "run_id", x.reset().runId(),
        "original_run_id", x.reset().originalRunId(), "sends_before", x.reset().sends().size()));
    for (JournaledSends.Send s : x.reset().sends()) {
      add.accept("dispatched#" + s.attempt(), mapOf("_at", s.at(), "run_id", s.runId()));
    }
  }

  /** Journal entries plus Temporal-derived ones for transitions the journal does not have. */
  public static List<Record> merge(List<Record> journal, List<Record> temporal) {
    Set<String> seen = journal.stream().map(r -> r.executionId() + "/" + r.transition() + "/" + r.attempt())
        .collect(Collectors.toSet());
    List<Record> out = new ArrayList<>(journal);
    for (Record r : temporal) {
      if (seen.add(r.executionId() + "/" + r.transition() + "/" + r.attempt())) {
        out.add(r);
      }
    }
    return out;
  }

  private static Map<String, Object> mapOf(Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int k = 0; k < kv.length; k += 2) {
      m.put((String) kv[k], kv[k + 1]);
    }
    return m;
  }
}
