package io.onceport.frontend.contract;

import io.onceport.frontend.contract.ContractFile.Bound;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules of a contract that join several fields, which the contract schema does not state: the
 * tool's own JSON Schemas, the channel and its section, placeholders and URLs, what each channel
 * section allows together, and the fingerprint's argument names. The replay section's rules are
 * {@link ReplayRules}'. They run on the bound file also when the schema found errors, skipping
 * what is absent or invalid (null), so every mistake of a file is reported at once.
 */
final class ContractRules {
  private final Problems problems;
  private final Bound bound;
  private final ContractFile file;
  private final Set<String> properties;
  private final Templates templates;

  private ContractRules(Problems problems, Bound bound) {
    this.problems = problems;
    this.bound = bound;
    this.file = bound.file();
    this.properties = ToolSchemas.properties(bound.root().get("input_schema"));
    this.templates = new Templates(problems, properties);
  }

  /** Records every error and warning of {@code bound} in {@code problems}. */
  static void check(Problems problems, Bound bound) {
    new ContractRules(problems, bound).check();
  }

  private void check() {
    ToolSchemas.check(problems, "input_schema", bound.root().get("input_schema"));
    ToolSchemas.check(problems, "output_schema", bound.root().get("output_schema"));
    Channel channel = bound.channel();
    if (channel != null) {
      sections(channel);
    }
    if (channel == Channel.HTTP && file.http() != null) {
      http(file.http());
    } else if (channel == Channel.SSH && file.ssh() != null) {
      ssh(file.ssh());
    } else if (channel == Channel.MCP && file.mcp() != null) {
      mcp(file.mcp());
    }
    if (file.replay() != null) {
      new ReplayRules(problems, templates, bound).check();
    }
    if (file.fingerprint() != null) {
      fingerprint(file.fingerprint());
    }
    if (channel == Channel.MCP && problems.present("result")) {
      problems.error("result", "not used with channel mcp (the upstream's MCP content blocks pass through as they are)");
    }
  }

  /** The channel's section is required, the others' are not allowed. */
  private void sections(Channel channel) {
    String name = wireName(channel);
    for (Channel other : Channel.values()) {
      String section = wireName(other);
      if (other == channel && !problems.present(section)) {
        problems.error(section, "required");
      } else if (other != channel && problems.present(section)) {
        problems.error(section, "not allowed with channel " + name);
      }
    }
  }

  static String wireName(Channel channel) {
    return channel.name().toLowerCase(Locale.ROOT);
  }

  private void http(ContractFile.Http h) {
    if (h.url() != null) {
      templates.url("http.url", h.url());
    }
    credentialOrigin(h);
    if (h.body() != null) {
      templates.placeholdersIn("http.body", h.body());
    }
    if (h.headers() != null) {
      h.headers().forEach((name, value) -> {
        if (value != null) {
          templates.placeholders("http.headers." + name, value);
        }
      });
    }
  }

  /**
   * A credential goes only to the origin the contract names: a URL whose host (or port) comes from
   * an argument lets the agent choose where the bearer token or API key is sent, so such a contract
   * must say {@code dynamic_host: true} to load — the status and verification URLs too, which carry
   * the credential as well. Without a credential nothing secret travels, and an argument may choose the host.
   */
  private void credentialOrigin(ContractFile.Http h) {
    boolean dynamic = Boolean.TRUE.equals(h.dynamicHost());
    ContractFile.HttpStatus status = bound.httpStatus();
    boolean anyDynamic = false;
    ContractFile.HttpVerify verify = bound.httpVerify();
    for (String[] url : new String[][] {{"http.url", h.url()}, {"replay.status.url", status == null ? null : status.url()},
        {"replay.verify.url", verify == null ? null : verify.url()}}) {
      if (url[1] == null || !Templates.hostFromArgument(url[1])) {
        continue;
      }
      anyDynamic = true;
      if (h.credential() != null && !dynamic) {
        problems.error(url[0], "the URL's host comes from an argument and the request carries credential " + h.credential()
            + ": the agent would choose where the credential goes. Put the host in the contract, or say dynamic_host: true"
            + " if every host an agent may name is meant to get it");
      }
    }
    if (dynamic && !anyDynamic) {
      problems.warn("http.dynamic_host", "has no effect: no URL of this contract takes its host from an argument");
    }
  }

  private void ssh(ContractFile.Ssh s) {
    if (!problems.present("ssh.credential") && !problems.present("ssh.key_file")) {
      problems.error("ssh.credential", "required (a vault reference), or key_file for development");
    } else if (s.credential() != null && s.keyFile() != null) {
      problems.error("ssh.key_file", "give credential or key_file, not both");
    }
    List<String> command = s.command() == null ? List.of() : s.command();
    for (int i = 0; i < command.size(); i++) {
      if (command.get(i) != null) {
        templates.placeholders("ssh.command[" + i + "]", command.get(i));
      }
    }
  }

  /** An upstream is reached by url or by command, never both; what only one of them uses. */
  private void mcp(ContractFile.Mcp m) {
    if (m.url() != null) {
      templates.url("mcp.url", m.url());
      if (Templates.PLACEHOLDER.matcher(m.url()).find()) {
        problems.error("mcp.url", "placeholders are not allowed in an upstream server's URL");
      }
    }
    boolean stdio = m.command() != null && !m.command().isEmpty();
    if (!problems.present("mcp.url") && !problems.present("mcp.command")) {
      problems.error("mcp.url", "required: url (a Streamable HTTP endpoint) or command (an argv the worker runs over stdio)");
    } else if (m.url() != null && stdio) {
      problems.error("mcp.command", "give url or command, not both");
    }
    if (m.env() != null && !stdio) {
      problems.error("mcp.env", "only for a stdio upstream (command)");
    }
    if (m.workingDir() != null && !stdio) {
      problems.error("mcp.working_dir", "only for a stdio upstream (command)");
    }
    if (m.credential() != null && m.url() == null) {
      problems.error("mcp.credential", "only for an HTTP upstream (url): it is sent as Authorization: Bearer");
    }
  }

  private void fingerprint(ContractFile.Fingerprint fp) {
    List<String> ignore = argumentNames("fingerprint.ignore", fp.ignore());
    for (String s : argumentNames("fingerprint.secret", fp.secret())) {
      if (ignore.contains(s)) {
        problems.error("fingerprint.secret", "'" + s + "' is also in fingerprint.ignore");
      }
    }
  }

  /** The names of {@code names} that are input_schema properties; an error for each other one. */
  private List<String> argumentNames(String path, List<String> names) {
    List<String> out = new ArrayList<>();
    for (int i = 0; names != null && i < names.size(); i++) {
      String name = names.get(i);
      if (name != null && !properties.contains(name)) {
        problems.error(path + "[" + i + "]", "'" + name + "' is not a property of input_schema");
      } else if (name != null) {
        out.add(name);
      }
    }
    return out;
  }

  /** The replay class a contract asks for, or null when absent or invalid. */
  static ReplayClass replayClass(ContractFile file) {
    return file.replay() == null || file.replay().replayClass() == null ? null
        : ReplayClass.fromWireName(file.replay().replayClass());
  }
}
