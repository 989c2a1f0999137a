package io.onceport.frontend.contract;

import io.onceport.frontend.contract.ContractFile.Bound;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.contract.ToolContract.Channel;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The rules of {@code attach_window: until_verified} that join several fields: the class (not
 * {@code read_only}: a read has no effect to verify), the channel (an http URL, an mcp upstream
 * tool, or an ssh command the contract author vouches is read-only), that {@code verify} and {@code verified_window} go with {@code until_verified}
 * and only with it, the check's templates, and each condition's expectation: with a pointer exactly
 * one of {@code equals_result}, {@code equals} and {@code equals_argument}, an argument that exists
 * and is not sealed ({@code fingerprint.secret}: its value is never compared), and two conditions
 * that differ. A mistake here would keep an action's identity too short or never let it go, so
 * none is left to a default.
 */
final class VerifyRules {
  private final Problems problems;
  private final Templates templates;
  private final Bound bound;
  private final Set<String> properties;

  VerifyRules(Problems problems, Templates templates, Bound bound, Set<String> properties) {
    this.problems = problems;
    this.templates = templates;
    this.bound = bound;
    this.properties = properties;
  }

  void check(ReplayClass replayClass, Channel channel) {
    ContractFile.Replay replay = bound.file().replay();
    boolean until = replay.untilVerified();
    boolean verify = problems.present("replay.verify");
    if (!until) {
      if (verify) {
        problems.error("replay.verify", "used only with attach_window: until_verified");
      }
      if (problems.present("replay.verified_window")) {
        problems.error("replay.verified_window", "used only with attach_window: until_verified");
      }
      return;
    }
    if (replayClass == ReplayClass.READ_ONLY) {
      problems.error("replay.attach_window", "until_verified is not for class read_only (a read has no effect to verify)");
    }
    if (!verify) {
      problems.error("replay.verify", "required with attach_window: until_verified (how to check the effect: "
          + (channel == Channel.MCP ? "tool, verified_when" : channel == Channel.SSH ? "command, verified_when"
              : "method, url, verified_when") + ")");
      return;
    }
    if (bound.httpVerify() != null) {
      http(bound.httpVerify());
    } else if (bound.mcpVerify() != null) {
      mcp(bound.mcpVerify());
    } else if (bound.sshVerify() != null) {
      ssh(bound.sshVerify());
    }
  }

  /** An ssh check: the command's placeholders as the tool's own command's; the conditions as an http check's. */
  private void ssh(ContractFile.SshVerify v) {
    List<String> command = v.command() == null ? List.of() : v.command();
    for (int i = 0; i < command.size(); i++) {
      if (command.get(i) != null) {
        templates.placeholders("replay.verify.command[" + i + "]", command.get(i));
      }
    }
    schedule(v.every(), v.giveUpAfter());
    conditions(v.verifiedWhen(), v.notAppliedWhen());
  }

  private void http(ContractFile.HttpVerify v) {
    if (v.url() != null) {
      templates.url("replay.verify.url", v.url());
    }
    schedule(v.every(), v.giveUpAfter());
    conditions(v.verifiedWhen(), v.notAppliedWhen());
  }

  /** The two conditions of an http or ssh check (a status list, and a pointer with its expectation). */
  private void conditions(ContractFile.HttpCondition verified, ContractFile.HttpCondition notApplied) {
    if (verified != null) {
      expectation("replay.verify.verified_when", verified.pointer(), verified.equalsResult(), verified.literal(), verified.equalsArgument());
    }
    if (notApplied != null) {
      expectation("replay.verify.not_applied_when", notApplied.pointer(), notApplied.equalsResult(), notApplied.literal(),
          notApplied.equalsArgument());
    }
    if (verified != null && verified.equals(notApplied)) {
      problems.error("replay.verify.not_applied_when", "is the same condition as verified_when: an answer could not tell them apart");
    }
  }

  private void mcp(ContractFile.McpVerify v) {
    if (v.arguments() != null) {
      templates.placeholdersIn("replay.verify.arguments", v.arguments());
    }
    schedule(v.every(), v.giveUpAfter());
    ContractFile.McpCondition verified = v.verifiedWhen();
    ContractFile.McpCondition notApplied = v.notAppliedWhen();
    if (verified != null) {
      expectation("replay.verify.verified_when", verified.pointer(), verified.equalsResult(), verified.literal(), verified.equalsArgument());
    }
    if (notApplied != null) {
      expectation("replay.verify.not_applied_when", notApplied.pointer(), notApplied.equalsResult(), notApplied.literal(),
          notApplied.equalsArgument());
    }
    if (verified != null && verified.equals(notApplied)) {
      problems.error("replay.verify.not_applied_when", "is the same condition as verified_when: an answer could not tell them apart");
    }
  }

  /** {@code every} at least {@link VerifySpec#MIN_EVERY}; {@code give_up_after} not shorter than {@code every}. */
  private void schedule(Duration every, Duration giveUpAfter) {
    if (every != null && every.compareTo(VerifySpec.MIN_EVERY) < 0) {
      problems.error("replay.verify.every", "is " + every + "; at least " + VerifySpec.MIN_EVERY
          + " (a verification reads someone else's service on a schedule, not in a loop)");
    }
    Duration first = every == null ? VerifySpec.DEFAULT_EVERY : every;
    if (giveUpAfter != null && giveUpAfter.compareTo(first) < 0) {
      problems.error("replay.verify.give_up_after", "is " + giveUpAfter + ", shorter than every (" + first + "): no check would run");
    }
  }

  /** With a pointer exactly one expectation; an expectation only with a pointer; an argument that exists and is not sealed. */
  private void expectation(String path, String pointer, String equalsResult, Object literal, String equalsArgument) {
    int n = (equalsResult == null ? 0 : 1) + (literal == null ? 0 : 1) + (equalsArgument == null ? 0 : 1);
    boolean pointerGiven = pointer != null || problems.present(path + ".pointer");
    if (pointerGiven && n == 0 && allValid(path)) {
      problems.error(path, "pointer needs what its value must equal: one of equals_result, equals, equals_argument");
    } else if (n > 1) {
      problems.error(path, "give one of equals_result, equals, equals_argument, not " + n);
    } else if (!pointerGiven && n == 1 && !problems.reported(path + ".pointer")) {
      String field = equalsResult != null ? "equals_result" : literal != null ? "equals" : "equals_argument";
      problems.error(path + "." + field, "needs pointer (where in the verification answer to look)");
    }
    if (equalsArgument != null) {
      if (!properties.contains(equalsArgument)) {
        problems.error(path + ".equals_argument", "'" + equalsArgument + "' is not a property of input_schema");
      } else if (secret().contains(equalsArgument)) {
        problems.error(path + ".equals_argument", "'" + equalsArgument + "' is in fingerprint.secret: its value is sealed and "
            + "never compared (nor shown on the record)");
      }
    }
  }

  /** True when none of a condition's expectation fields was refused by the schema (then it is that field's error). */
  private boolean allValid(String path) {
    for (String field : List.of("equals_result", "equals", "equals_argument")) {
      if (problems.present(path + "." + field)) {
        return false;
      }
    }
    return true;
  }

  private List<String> secret() {
    ContractFile.Fingerprint fp = bound.file().fingerprint();
    return fp == null || fp.secret() == null ? List.of() : fp.secret().stream().filter(Objects::nonNull).toList();
  }
}
