package io.onceport.app.cli;

import io.onceport.app.codec.CodecSignIn;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceport operator codec-link}: the codec server's one-step sign-in for an operator's
 * browser ({@link CodecSignIn}). The link is a one-time ticket; the browser that opens it gets the
 * codec server's short-lived session cookie.
 */
@Command(name = "codec-link", mixinStandardHelpOptions = true,
    description = {"Print a one-time link that signs your browser in to the codec server: opened once (within 10 minutes), "
        + "the Temporal UI shows decoded payloads in that browser for an hour.",
        "Signed with your operator key, or, with --local, with the deployment's own keys (whoever holds the data dir)."})
final class CodecLinkCommand implements Runnable {
  @Spec CommandSpec spec;
  @Mixin OperatorKeyOptions key;

  @Option(names = "--url", paramLabel = "URL", defaultValue = "http://127.0.0.1:8765/codec",
      description = "The codec endpoint as your browser reaches it: a front end's /codec, or serve's UI (http://127.0.0.1:8233/codec) "
          + "(default: ${DEFAULT-VALUE}).")
  String url;

  @Option(names = "--local",
      description = "Make the link with the data directory's keys (--data) instead of an operator key: a serve on this machine.")
  boolean local;

  @Mixin DataOptions data;

  @Option(names = "--next", paramLabel = "PATH", description = "Where the browser goes after signing in, a path on the endpoint's "
      + "host (e.g. /namespaces/default/workflows on serve's UI).")
  String next;

  @Override
  public void run() {
    String base = url.replaceAll("/+$", "");
    if (!base.startsWith("http://") && !base.startsWith("https://")) {
      throw new CliException("--url must be the codec endpoint's http(s) URL, e.g. http://127.0.0.1:8765/codec, not '" + url + "'");
    }
    if (next != null && (!next.startsWith("/") || next.startsWith("//"))) {
      throw new CliException("--next must be a path on the endpoint's host, starting with one '/', not '" + next + "'");
    }
    String ticket;
    if (local) {
      if (!Files.isDirectory(data.data().resolve("keys"))) {
        throw new CliException("--data " + data.data() + " has no keys directory: not an Onceport data directory");
      }
      ticket = CodecSignIn.forDataDir(data.data()).mintLocal(CodecSignIn.LINK);
    } else {
      ticket = CodecSignIn.mintOperator(key.load(), Instant.now(), CodecSignIn.LINK);
    }
    spec.commandLine().getErr().println("one use, within " + CodecSignIn.LINK.toMinutes() + " minutes; the browser then decodes for "
        + CodecSignIn.SESSION.toHours() + " hour:");
    spec.commandLine().getOut().println(base + "/sign-in?ticket=" + ticket
        + (next == null ? "" : "&next=" + URLEncoder.encode(next, StandardCharsets.UTF_8)));
  }
}
