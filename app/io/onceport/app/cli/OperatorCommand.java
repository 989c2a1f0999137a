package io.onceport.app.cli;

import io.onceport.shared.cli.CommandName;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.operator.DecisionStatement;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.execution.ExecutionRecord;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.SignedDecision;
import io.onceport.workflow.ids.AgentSessionId;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code onceport operator add|list|remove|rotate|codec-token|codec-link|sign}: the people whose decisions
 * workers accept. An operator is an Ed25519 key pair: the private key stays with the operator (a
 * 0600 file under their own configuration directory), the public key is registered in the data
 * directory where workers read it ({@code operators.json}). Agent tokens are a separate registry and
 * never act as an operator.
 */
@Command(
    name = "operator",
    mixinStandardHelpOptions = true,
    description = {"Manage operators: the Ed25519 keys that sign approvals, resolutions and session decisions.",
        "The private key stays with the operator; workers know only the public key (<data>/operators.json)."},
    subcommands = {
      OperatorAddCommand.class, OperatorCommand.Keygen.class, OperatorCommand.ListOperators.class, OperatorCommand.Remove.class,
      OperatorCommand.Rotate.class, OperatorCommand.CodecToken.class, CodecLinkCommand.class, OperatorCommand.Sign.class})
public final class OperatorCommand implements Runnable {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Where NAME's key goes: {@code --key-file}, else {@code <key dir>/NAME.key}; never inside the data directory. */
  static final class KeyLocation {
    @Option(names = "--key-file", paramLabel = "FILE", description = "Write the private key here (default: <key dir>/NAME.key).")
    Path keyFile;

    @Option(names = "--key-dir", paramLabel = "DIR",
        description = "The operator key directory (default: $XDG_CONFIG_HOME/onceport/operators or ~/.config/onceport/operators).")
    Path keyDir;

    Path file(String name, Path data) {
      Path file = keyFile != null ? keyFile : (keyDir != null ? keyDir : OperatorKeyOptions.defaultKeyDir()).resolve(name + ".key");
      Path f = file.toAbsolutePath().normalize();
      Path d = data.toAbsolutePath().normalize();
      try {
        if (Files.exists(data)) {
          d = data.toRealPath();
          Path existing = f;
          while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
          }
          if (existing != null) {
            f = existing.toRealPath().resolve(existing.relativize(f));
          }
        }
      } catch (IOException e) {
        throw new CliException("cannot resolve " + file + ": " + e.getMessage());
      }
      if (f.startsWith(d)) {
        throw new CliException("refusing to write " + name + "'s private key inside the data directory " + data
            + ": workers read that directory, and an operator key must stay with the operator; use --key-file or --key-dir elsewhere");
      }
      return file;
    }
  }

  static String describe(OperatorRegistry.Operator o) {
    return String.format("%-24s %-26s key since %s, added %s", o.name(), o.keyId(), o.keySince(), o.addedAt());
  }

  /** A registration line from {@code operator keygen}, for NAME. */
  static OperatorRegistry.Registration registration(String name, String line) {
    OperatorRegistry.Registration r;
    try {
      r = OperatorRegistry.Registration.parse(line);
    } catch (IllegalArgumentException e) {
      throw new CliException("--public-key: " + e.getMessage());
    }
    if (!r.name().equals(name)) {
      throw new CliException("--public-key is " + r.name() + "'s registration, not " + name + "'s");
    }
    return r;
  }

  @Command(name = "keygen", mixinStandardHelpOptions = true,
      description = {"On the operator's own machine: make NAME's key pair (private key to the key file, 0600) and print",
          "the line that registers its public half: `onceport operator add NAME --public-key opk1:…` where workers run."})
  static final class Keygen implements Runnable {
    @Spec CommandSpec spec;
    @Mixin KeyLocation location;

    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--rotate", description = "Replace NAME's existing key file (then register with `operator rotate NAME --public-key …`).")
    boolean rotate;

    @Override
    public void run() {
      OperatorKey key;
      try {
        key = OperatorKey.generate(name);
      } catch (IllegalArgumentException e) {
        throw new CliException(e.getMessage());
      }
      Path file = location.file(name, Path.of(System.getenv().getOrDefault("ONCEPORT_DATA", "data")));
      try {
        key.write(file, rotate);
      } catch (FileAlreadyExistsException e) {
        throw new CliException(file + " already exists (a new key for " + name + ": add --rotate)");
      } catch (IOException e) {
        throw new CliException("cannot write " + file + ": " + e.getMessage(), e);
      }
      String line = OperatorRegistry.Registration.of(key).encode();
      spec.commandLine().getErr().println("private key: " + file + " (0600; it stays here). Key " + key.keyId() + ". Register it where workers run:");
      spec.commandLine().getErr().println("  " + CommandName.command("operator " + (rotate ? "rotate" : "add") + " " + name
          + " --public-key " + line));
      spec.commandLine().getOut().println(line);
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List registered operators and their key ids.")
  static final class ListOperators implements Runnable {
    @Spec CommandSpec spec;
    @Mixin DataOptions data;

    @Override
    public void run() {
      PrintWriter out = spec.commandLine().getOut();
      try {
        new OperatorRegistry(data.data()).operators().forEach(o -> out.println(describe(o)));
      } catch (UncheckedIOException e) {
        throw new CliException(e.getMessage());
      }
      out.flush();
    }
  }

  @Command(name = "remove", mixinStandardHelpOptions = true,
      description = "Remove an operator: workers refuse their signed statements from now on, also those signed earlier.")
  static final class Remove implements Runnable {
    @Spec CommandSpec spec;
    @Mixin DataOptions data;

    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    public void run() {
      boolean removed;
      try {
        removed = new OperatorRegistry(data.data()).remove(name);
      } catch (IOException e) {
        throw new CliException("cannot write " + data.data().resolve(OperatorRegistry.FILE_NAME) + ": " + e.getMessage(), e);
      }
      if (!removed) {
        throw new CliException("no such operator: " + name);
      }
      spec.commandLine().getOut().println("removed " + name + "; statements signed with " + name + "'s key are refused from now on");
    }
  }

  @Command(name = "rotate", mixinStandardHelpOptions = true,
      description = {"Give an operator a new key: the key file is replaced and the new public key registered;",
          "statements signed with the old key are refused from now on."})
  static final class Rotate implements Runnable {
    @Spec CommandSpec spec;
    @Mixin DataOptions data;
    @Mixin KeyLocation location;

    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--public-key", paramLabel = "opk1:…",
        description = "Register this new public key (from `onceport operator keygen NAME --rotate`) instead of making one here.")
    String publicKey;

    @Override
    public void run() {
      OperatorRegistry registry = new OperatorRegistry(data.data());
      OperatorRegistry.Operator old = registry.find(name).orElseThrow(() ->
          new CliException("no operator " + name + " in " + registry.file() + "; register it with: "
              + CommandName.command("operator add " + name) + (Files.exists(location.file(name, data.data()))
                  ? " (it registers the key you have, " + location.file(name, data.data()) + ")" : "")));
      if (publicKey != null) {
        OperatorRegistry.Registration r = registration(name, publicKey);
        try {
          registry.rotate(r);
        } catch (IOException | IllegalArgumentException e) {
          throw new CliException("cannot rotate " + name + "'s key: " + e.getMessage());
        }
        spec.commandLine().getOut().println("operator " + name + ": new key " + r.keyId() + "; old key " + old.keyId()
            + " retired (statements signed with it are refused)");
        return;
      }
      Path file = location.file(name, data.data());
      OperatorKey key = OperatorKey.generate(name);
      try {
        key.write(file, true);
        registry.rotate(key);
      } catch (IOException | IllegalArgumentException e) {
        throw new CliException("cannot rotate " + name + "'s key: " + e.getMessage());
      }
      spec.commandLine().getOut().println("operator " + name + ": new key " + key.keyId() + " in " + file + "; old key " + old.keyId()
          + " retired (statements signed with it are refused)");
    }
  }

  @Command(name = "codec-token", mixinStandardHelpOptions = true,
      description = {"Print this operator's bearer token for the codec server (/codec/decode, /codec/encode).",
          "Derived from the operator key: a rotated key has a new token. Agent tokens are not accepted there."})
  static final class CodecToken implements Runnable {
    @Spec CommandSpec spec;
    @Mixin OperatorKeyOptions key;

    @Override
    public void run() {
      spec.commandLine().getOut().println(key.load().codecToken());
    }
  }

  @Command(name = "sign", mixinStandardHelpOptions = true,
      description = {"Print a signed decision for the Temporal UI (or `temporal workflow update`/`signal`):",
          "paste the printed JSON as the input of decideApproval (approval), resolve (resolution), verify (verification), or the",
          "session's authorize/deny update (session). Without --fingerprint an execution's is read from Temporal."})
  static final class Sign implements Runnable {
    @Spec CommandSpec spec;
    @Mixin OperatorKeyOptions key;
    @Mixin TemporalOptions temporal;

    @Parameters(index = "0", paramLabel = "KIND", description = "approval, resolution, session or verification.")
    String kind;

    @Parameters(index = "1", paramLabel = "SUBJECT", description = "The execution id (act_…) or the session id.")
    String subject;

    @Option(names = "--decision", required = true,
        description = "approval: approve|deny; resolution: completed|failed|redispatch; session: authorize|deny; "
            + "verification: verified|not_applied.")
    String decision;

    @Option(names = "--fingerprint", description = "The execution's fingerprint (default: read from its record).")
    String fingerprint;

    @Option(names = "--actor", paramLabel = "ACTOR",
        description = "session: the session's actor (default: read from the session id; a session statement names its actor).")
    String actor;

    @Option(names = "--reason", defaultValue = "", description = "Why; recorded with the decision (required for deny, resolutions and verifications).")
    String reason;

    @Override
    public void run() {
      List<String> decisions;
      try {
        decisions = DecisionBinding.decisionsOf(kind);
      } catch (IllegalArgumentException e) {
        throw new CliException(e.getMessage());
      }
      if (!decisions.contains(decision)) {
        throw new CliException("--decision for a " + kind + " must be one of " + String.join(", ", decisions) + ", not '" + decision + "'");
      }
      boolean explained = DecisionBinding.RESOLUTION.equals(kind) || DecisionBinding.VERIFICATION.equals(kind);
      if (reason.isBlank() && (explained || DecisionBinding.DENY.equals(decision))) {
        throw new CliException("--reason must not be empty for a " + (explained ? kind : "denial"));
      }
      OperatorKey signer = key.load();
      java.time.Duration validity = key.validity();
      String fp = null;
      if (!DecisionBinding.SESSION.equals(kind)) {
        fp = fingerprint;
        if (fp == null) {
          try (TemporalConnection connection = temporal.connect()) {
            ExecutionRecord record = ExecutionsCommand.load(connection, subject);
            fp = record.fingerprint();
          }
        }
      }
      String sessionActor = null;
      if (DecisionBinding.SESSION.equals(kind)) {
        sessionActor = actor != null ? actor : AgentSessionId.parse(subject).map(AgentSessionId::actor).orElseThrow(() ->
            new CliException("the session id " + subject + " does not name its actor (a session from before ids did); pass --actor ACTOR"));
        AgentSessionId.parse(subject).filter(p -> !p.actor().equals(actor) && actor != null).ifPresent(p -> {
          throw new CliException("--actor " + actor + " is not the actor of session " + subject + ", which is " + p.actor());
        });
      }
      SignedDecision signed = sessionActor == null ? sign(signer, kind, subject, fp, decision, reason, validity)
          : signSession(signer, subject, sessionActor, decision, reason, validity);
      DecisionStatement s = DecisionStatement.parse(signed.statement());
      spec.commandLine().getErr().println("signed by " + signer.operator() + " (" + signer.keyId() + "): " + kind + " " + decision + " of "
          + subject + (fp == null ? "" : " / " + fp) + (sessionActor == null ? "" : " (actor " + sessionActor + ")")
          + ", valid until " + s.expiresAt());
      spec.commandLine().getOut().println(json(signed));
    }
  }

  /** Signs a statement issued now. */
  static SignedDecision sign(OperatorKey key, String kind, String subject, String fingerprint, String decision, String reason,
      java.time.Duration validity) {
    return key.sign(DecisionStatement.issue(kind, subject, fingerprint, decision, reason, key, Instant.now(), validity));
  }

  /** Signs a decision on {@code actor}'s session, issued now. */
  static SignedDecision signSession(OperatorKey key, String sessionId, String actor, String decision, String reason,
      java.time.Duration validity) {
    return key.sign(DecisionStatement.issueSession(sessionId, actor, decision, reason, key, Instant.now(), validity));
  }

  /** {@code {"statement":"…","signature":"…"}}: the input the UI takes for every decision handler. */
  static String json(SignedDecision signed) {
    try {
      return JSON.writeValueAsString(signed);
    } catch (IOException e) {
      throw new CliException("cannot render the signed decision: " + e.getMessage());
    }
  }
}
