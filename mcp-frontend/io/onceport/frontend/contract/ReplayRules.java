package io.onceport.frontend.contract;

import io.onceport.frontend.contract.ContractFile.Bound;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.ToolContract.Channel;
import java.time.Duration;
import java.util.List;

/**
 * The rules of the replay section that depend on the channel and the class: which status facility
 * a {@code status_query} tool needs (a status URL for http, an upstream status tool for mcp, the
 * remote marker for ssh), that an {@code idempotency_key} tool names its header, that answer
 * lists do not overlap, and that an ssh tool without a marker is forced to {@code irreversible};
 * those of {@code attach_window: until_verified} are {@link VerifyRules}'.
 * These decide whether a lost response may be sent again, so none of them is left to a default.
 */
final class ReplayRules {
  private final Problems problems;
  private final Templates templates;
  private final Bound bound;

  ReplayRules(Problems problems, Templates templates, Bound bound) {
    this.problems = problems;
    this.templates = templates;
    this.bound = bound;
  }

  void check() {
    ReplayClass replayClass = ContractRules.replayClass(bound.file());
    Channel channel = bound.channel();
    if (problems.present("replay.status")) {
      status(channel, replayClass);
    } else if (replayClass == ReplayClass.STATUS_QUERY && channel == Channel.HTTP) {
      problems.error("replay.status", "required for class status_query");
    } else if (replayClass == ReplayClass.STATUS_QUERY && channel == Channel.MCP) {
      problems.error("replay.status", "required for class status_query: tool (a read-only upstream tool), arguments, "
          + "field, completed_when, not_executed_when");
    }
    if (replayClass == ReplayClass.IDEMPOTENCY_KEY && channel == Channel.HTTP && bound.file().http() != null
        && !problems.present("http.idempotency_header")) {
      problems.error("http.idempotency_header", "required for class idempotency_key (the header that carries the execution id)");
    }
    Duration tail = bound.file().replay() == null ? null : bound.file().replay().dedupeAfterDelivery();
    if (tail != null && tail.compareTo(ReplaySpec.MIN_DEDUPE_AFTER_DELIVERY) < 0) {
      problems.error("replay.dedupe_after_delivery", "is " + tail + "; at least " + ReplaySpec.MIN_DEDUPE_AFTER_DELIVERY
          + " (a shorter tail could close an execution before a front end's repeated attempt of a call reached it)");
    }
    new VerifyRules(problems, templates, bound, ToolSchemas.properties(bound.root().get("input_schema")))
        .check(effective(bound, replayClass), channel);
    if (replayClass != null && effective(bound, replayClass) != replayClass) {
      problems.warn("ssh.marker", "not true: replay class forced to irreversible (contract says " + replayClass.wireName()
          + "); set marker: true and install the helper to allow status queries");
    }
  }

  /**
   * The class the tool runs under: as written, except that an ssh tool without {@code marker:
   * true} is {@code irreversible} — without the remote marker nothing can tell whether a command
   * whose answer was lost ran.
   */
  static ReplayClass effective(Bound bound, ReplayClass replayClass) {
    ContractFile.Ssh ssh = bound.file().ssh();
    boolean unmarked = bound.channel() == Channel.SSH && ssh != null && !Boolean.TRUE.equals(ssh.marker());
    return unmarked && replayClass != null ? ReplayClass.IRREVERSIBLE : replayClass;
  }

  private void status(Channel channel, ReplayClass replayClass) {
    if (channel == Channel.SSH) {
      problems.error("replay.status", "not used with channel ssh (the remote marker answers status queries)");
      return;
    }
    if (channel == null) {
      return;
    }
    if (replayClass != null && replayClass != ReplayClass.STATUS_QUERY) {
      problems.warn("replay.status", "ignored for class " + replayClass.wireName() + " (only status_query uses it)");
    }
    if (bound.httpStatus() != null) {
      httpStatus(bound.httpStatus());
    } else if (bound.mcpStatus() != null) {
      mcpStatus(bound.mcpStatus());
    }
  }

  private void httpStatus(ContractFile.HttpStatus st) {
    if (st.url() != null) {
      templates.url("replay.status.url", st.url());
    }
    for (Integer code : orEmpty(st.notExecutedWhen())) {
      if (code != null && orEmpty(st.completedWhen()).contains(code)) {
        problems.error("replay.status.not_executed_when", code + " is also in completed_when");
      }
    }
  }

  private void mcpStatus(ContractFile.McpStatus st) {
    if (st.arguments() != null) {
      templates.placeholdersIn("replay.status.arguments", st.arguments());
    }
    List<String> completed = orEmpty(st.completedWhen());
    List<String> failed = orEmpty(st.failedWhen());
    for (String v : orEmpty(st.notExecutedWhen())) {
      if (v != null && (completed.contains(v) || failed.contains(v))) {
        problems.error("replay.status.not_executed_when", "'" + v + "' is also in completed_when or failed_when");
      }
    }
    for (String v : failed) {
      if (v != null && completed.contains(v)) {
        problems.error("replay.status.failed_when", "'" + v + "' is also in completed_when");
      }
    }
  }

  static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
