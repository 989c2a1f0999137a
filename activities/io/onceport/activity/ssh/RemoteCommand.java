package io.onceport.activity.ssh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.SshSpec;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns an {@link SshSpec} argv into the one string an SSH exec request carries. The remote side
 * hands that string to the account's shell ({@code sh -c}), so every argv element is wrapped in
 * POSIX single quotes: inside them the shell interprets nothing, and an argument such as
 * {@code ; rm -rf /}, a quote, a newline or {@code $(...)} reaches the command as one literal
 * argument. The only character that cannot appear inside single quotes, {@code '}, is written as
 * {@code '\''} (close, escaped quote, reopen).
 */
public final class RemoteCommand {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.-]*)\\s*\\}\\}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private RemoteCommand() {}

  /** {@code value} as one POSIX shell word that the shell passes through unchanged. */
  public static String quote(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }

  /**
   * The argv with {@code {{name}}} placeholders replaced by the arguments (strings verbatim, other
   * JSON values as their JSON text) and {@code {{execution_id}}} by the execution id.
   *
   * @throws ApplicationFailure non-retryable {@link ErrorTypes#INVALID_REQUEST} for a missing or
   *     null argument, unparsable arguments, or a NUL character (argv cannot carry one)
   */
  public static List<String> renderArgv(List<String> template, String argumentsJson, String executionId) {
    JsonNode arguments;
    try {
      arguments = JSON.readTree(argumentsJson);
    } catch (Exception e) {
      throw invalid("arguments are not valid JSON");
    }
    List<String> argv = new ArrayList<>(template.size());
    for (String element : template) {
      Matcher m = PLACEHOLDER.matcher(element);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1);
        String value;
        if (name.equals("execution_id")) {
          value = executionId;
        } else {
          JsonNode node = arguments == null ? null : arguments.get(name);
          if (node == null || node.isNull()) {
            throw invalid("command placeholder {{" + name + "}} has no argument value");
          }
          value = node.isTextual() ? node.textValue() : node.toString();
        }
        m.appendReplacement(out, Matcher.quoteReplacement(value));
      }
      m.appendTail(out);
      if (out.indexOf("\0") >= 0) {
        throw invalid("command argument contains a NUL character");
      }
      argv.add(out.toString());
    }
    return argv;
  }

  /** The exec string for a rendered argv: {@code cd 'DIR' && 'a0' 'a1' ...}. */
  public static String commandLine(String workingDir, List<String> argv) {
    StringBuilder line = new StringBuilder();
    if (workingDir != null && !workingDir.isEmpty()) {
      line.append("cd ").append(quote(workingDir)).append(" && ");
    }
    for (int i = 0; i < argv.size(); i++) {
      if (i > 0) {
        line.append(' ');
      }
      line.append(quote(argv.get(i)));
    }
    return line.toString();
  }

  /** The argv that runs {@code argv} through the marker helper under {@code executionId}. */
  public static List<String> helperRun(SshSpec spec, String executionId, List<String> argv) {
    List<String> out = helperPrefix(spec, "run");
    out.add(executionId);
    out.add("--");
    out.addAll(argv);
    return out;
  }

  /** The argv that asks the marker helper about {@code executionId}. */
  public static List<String> helperStatus(SshSpec spec, String executionId) {
    List<String> out = helperPrefix(spec, "status");
    out.add(executionId);
    return out;
  }

  private static List<String> helperPrefix(SshSpec spec, String subcommand) {
    List<String> out = new ArrayList<>();
    out.add(spec.helperPath() == null || spec.helperPath().isEmpty() ? "onceport-run" : spec.helperPath());
    out.add(subcommand);
    if (spec.stateDir() != null && !spec.stateDir().isEmpty()) {
      out.add("--state-dir");
      out.add(spec.stateDir());
    }
    return out;
  }

  private static ApplicationFailure invalid(String message) {
    return ApplicationFailure.newNonRetryableFailure(message, ErrorTypes.INVALID_REQUEST);
  }
}
