package io.onceport.frontend.contract;

import static io.onceport.frontend.contract.ReplayRules.orEmpty;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.frontend.contract.ContractFile.Bound;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.McpSpec;
import io.onceport.workflow.contract.McpStatusSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifyCondition;
import io.onceport.workflow.contract.VerifySpec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Builds the {@link ToolContract} of a file that passed the schema and the rules: defaults filled
 * in ({@link ContractLoader#DEFAULT_HTTP_TIMEOUT} and the others), methods upper-cased, templates
 * and schemas as JSON text, the replay class as the rules decided it.
 */
final class ContractAssembler {
  private ContractAssembler() {}

  static ToolContract build(Bound bound) {
    ContractFile f = bound.file();
    String inputSchema = bound.root().get("input_schema").toString();
    JsonNode output = bound.root().get("output_schema");
    String outputSchema = output == null ? null : output.toString();
    ContractFile.Fingerprint fp = f.fingerprint();
    List<String> ignore = fp == null ? List.of() : orEmpty(fp.ignore());
    List<String> secret = fp == null ? List.of() : orEmpty(fp.secret());
    ReplaySpec replay = replay(bound);
    return switch (bound.channel()) {
      case MCP -> ToolContract.mcp(f.tool(), f.description(), inputSchema, outputSchema, mcp(bound), replay, ignore, secret);
      case HTTP -> new ToolContract(f.tool(), f.description(), inputSchema, outputSchema, ToolContract.Channel.HTTP,
          http(f.http()), null, replay, ignore, secret, resultFormat(f));
      case SSH -> new ToolContract(f.tool(), f.description(), inputSchema, outputSchema, ToolContract.Channel.SSH,
          null, ssh(f.ssh()), replay, ignore, secret, resultFormat(f));
    };
  }

  private static String resultFormat(ContractFile f) {
    return f.result() == null || f.result().format() == null ? ToolContract.RESULT_TEXT : f.result().format();
  }

  private static HttpSpec http(ContractFile.Http h) {
    return new HttpSpec(h.method().toUpperCase(Locale.ROOT), h.url(), h.body() == null ? null : h.body().toString(),
        h.headers(), h.idempotencyHeader(), h.credential(), or(h.timeout(), ContractLoader.DEFAULT_HTTP_TIMEOUT).toMillis());
  }

  private static SshSpec ssh(ContractFile.Ssh s) {
    return new SshSpec(s.host(), s.port() == null ? 22 : s.port(), s.user(), s.hostKey(), s.credential(), s.keyFile(),
        s.command(), s.workingDir(), Boolean.TRUE.equals(s.marker()),
        s.helperPath() == null ? ContractLoader.DEFAULT_HELPER_PATH : s.helperPath(), s.stateDir(),
        or(s.timeout(), ContractLoader.DEFAULT_SSH_TIMEOUT).toMillis());
  }

  private static McpSpec mcp(Bound bound) {
    ContractFile.Mcp m = bound.file().mcp();
    ContractFile.McpStatus st = bound.mcpStatus();
    McpStatusSpec status = st == null ? null : new McpStatusSpec(st.tool(),
        st.arguments() == null ? "{}" : st.arguments().toString(), st.field(), st.completedWhen(), st.failedWhen(),
        st.notExecutedWhen());
    return new McpSpec(m.url(), m.command(), m.env(), m.workingDir(), m.tool(), m.credential(),
        or(m.timeout(), ContractLoader.DEFAULT_MCP_TIMEOUT).toMillis(), status);
  }

  private static ReplaySpec replay(Bound bound) {
    ContractFile.Replay r = bound.file().replay();
    ReplayClass replayClass = ReplayRules.effective(bound, ReplayClass.fromWireName(r.replayClass()));
    ContractFile.HttpStatus st = bound.httpStatus();
    StatusSpec status = st == null ? null : new StatusSpec(st.method().toUpperCase(Locale.ROOT), st.url(),
        st.completedWhen(), orEmpty(st.notExecutedWhen()), st.settle());
    Duration window = r.attachWindow() == null || r.untilVerified() ? ContractLoader.DEFAULT_ATTACH_WINDOW
        : Duration.parse(r.attachWindow());
    return new ReplaySpec(replayClass, window, status, r.dedupeAfterDelivery(),
        r.untilVerified() ? verify(bound, r.verifiedWindow()) : null);
  }

  /** {@code replay.verify} and {@code replay.verified_window} as the model holds them; methods upper-cased, templates as JSON text. */
  private static VerifySpec verify(Bound bound, Duration verifiedWindow) {
    VerifySpec.Builder b = VerifySpec.newBuilder().setVerifiedWindow(verifiedWindow);
    ContractFile.HttpVerify h = bound.httpVerify();
    ContractFile.McpVerify m = bound.mcpVerify();
    ContractFile.SshVerify s = bound.sshVerify();
    if (s != null) {
      b.setSsh(s.command()).setEvery(s.every()).setGiveUpAfter(s.giveUpAfter())
          .setVerifiedWhen(condition(s.verifiedWhen())).setNotAppliedWhen(condition(s.notAppliedWhen()));
    } else if (h != null) {
      b.setHttp(h.method().toUpperCase(Locale.ROOT), h.url()).setEvery(h.every()).setGiveUpAfter(h.giveUpAfter())
          .setVerifiedWhen(condition(h.verifiedWhen())).setNotAppliedWhen(condition(h.notAppliedWhen()));
    } else {
      b.setMcp(m.tool(), m.arguments() == null ? null : m.arguments().toString()).setEvery(m.every())
          .setGiveUpAfter(m.giveUpAfter()).setVerifiedWhen(condition(m.verifiedWhen()))
          .setNotAppliedWhen(condition(m.notAppliedWhen()));
    }
    return b.build();
  }

  private static VerifyCondition condition(ContractFile.HttpCondition c) {
    return c == null ? null : new VerifyCondition(c.status(), c.pointer(), c.equalsResult(),
        c.literal() == null ? null : c.literal().toString(), c.equalsArgument());
  }

  private static VerifyCondition condition(ContractFile.McpCondition c) {
    return c == null ? null : new VerifyCondition(List.of(), c.pointer(), c.equalsResult(),
        c.literal() == null ? null : c.literal().toString(), c.equalsArgument());
  }

  private static Duration or(Duration value, Duration dflt) {
    return value == null ? dflt : value;
  }
}
