package io.onceport.frontend.fingerprint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.UrlTemplate;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The canonical action record of the seed essay: what a call asks to happen (actor, tool, channel,
 * target, credential reference, method, normalized arguments, intent scope), independent of how it
 * was delivered. Two calls with equal records are the same intended action; the fingerprint is the
 * keyed HMAC of the record's RFC 8785 (JCS) serialization.
 *
 * <p>Never contains a secret: arguments the contract marks {@code fingerprint.secret} appear only
 * as {@code hmac-sha256:<hex>} of their value under the fingerprint key, in {@code arguments} and
 * in an SSH {@code command}; an HTTP target keeps only scheme, host, port and path, and a secret
 * placeholder in the URL path stays unsubstituted.
 *
 * <p>Numbers JCS would round (beyond 2^53, more digits than a double holds; see {@link ExactJson})
 * appear in {@code arguments} as the decimal string of their value, and {@code exact_numbers}
 * lists their JSON pointers (relative to {@code arguments}), so {@code 2^53} and {@code 2^53+1}
 * differ and a number never equals the string with its digits. Without such numbers the record is
 * exactly what it always was: existing fingerprints do not change.
 */
public final class CanonicalActionRecord {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}]*)}}");

  private final ObjectNode tree;
  private final String canonicalJson;

  private CanonicalActionRecord(ObjectNode tree) {
    this.tree = tree;
    this.canonicalJson = jcs(tree);
  }

  public static Builder builder(FingerprintKey key) {
    return new Builder(key);
  }

  /** A copy of the record as a tree. */
  public ObjectNode tree() {
    return tree.deepCopy();
  }

  /** The RFC 8785 serialization. */
  public String canonicalJson() {
    return canonicalJson;
  }

  public byte[] canonicalBytes() {
    return canonicalJson.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return canonicalJson;
  }

  /** RFC 8785 serialization of a Jackson tree whose numbers are all ordinary (see {@link ExactJson}). */
  static String jcs(JsonNode node) {
    return ExactJson.jcs(node);
  }

  /** Collects the parts of a record; {@link #build} checks that the required ones are there. */
  public static final class Builder {
    private final FingerprintKey key;
    private ToolContract contract;
    private String actor;
    private JsonNode arguments;
    private String runId;

    private Builder(FingerprintKey key) {
      this.key = Objects.requireNonNull(key, "key == null");
    }

    public Builder contract(ToolContract contract) {
      this.contract = Objects.requireNonNull(contract, "contract == null");
      return this;
    }

    public Builder actor(String actor) {
      this.actor = Objects.requireNonNull(actor, "actor == null");
      return this;
    }

    /** The arguments as returned by {@code ArgumentValidator} (defaults materialized). */
    public Builder arguments(JsonNode arguments) {
      this.arguments = Objects.requireNonNull(arguments, "arguments == null");
      if (!arguments.isObject()) {
        throw new IllegalArgumentException("arguments is not an object");
      }
      return this;
    }

    /** The client's run id ({@code _meta onceport/run} or {@code Onceport-Run}), or null. */
    public Builder runId(String runId) {
      this.runId = runId == null || runId.isEmpty() ? null : runId;
      return this;
    }

    public CanonicalActionRecord build() {
      Objects.requireNonNull(contract, "contract == null");
      Objects.requireNonNull(actor, "actor == null");
      Objects.requireNonNull(arguments, "arguments == null");
      Set<String> secret = Set.copyOf(contract.fingerprintSecret());
      ObjectNode r = JsonNodeFactory.instance.objectNode();
      r.put("actor", actor);
      r.put("tool", contract.tool());
      if (contract.channel() == ToolContract.Channel.HTTP) {
        HttpSpec http = contract.http();
        r.put("channel", "http");
        r.put("target", httpTarget(http.url(), secret));
        putIfNotNull(r, "credential_ref", http.credential());
        r.put("method", http.method());
      } else if (contract.channel() == ToolContract.Channel.MCP) {
        putMcpTarget(r, contract.mcp());
      } else {
        SshSpec ssh = contract.ssh();
        r.put("channel", "ssh");
        r.put("target", "ssh://" + ssh.user() + "@" + ssh.host().toLowerCase(Locale.ROOT) + ":" + ssh.port());
        r.put("host_key", ssh.hostKey());
        putIfNotNull(r, "credential_ref", ssh.credential() != null ? ssh.credential() : "key_file:" + ssh.keyFile());
        r.put("method", "exec");
        List<String> argv = new ArrayList<>();
        for (String element : ssh.command()) {
          argv.add(substitute(element, name -> {
            JsonNode v = arguments.get(name);
            return secret.contains(name) ? secretValue(v) : text(v);
          }));
        }
        argv.forEach(r.putArray("command")::add);
        putIfNotNull(r, "working_dir", ssh.workingDir());
      }
      ObjectNode args = arguments.deepCopy();
      contract.fingerprintIgnore().forEach(args::remove);
      for (String name : secret) {
        if (args.has(name)) {
          args.put(name, secretValue(args.get(name)));
        }
      }
      ExactJson.Split exact = ExactJson.split(args);
      r.set("arguments", exact.tree());
      if (!exact.pointers().isEmpty()) {
        exact.pointers().forEach(r.putArray("exact_numbers")::add);
      }
      r.put("intent_scope", runId != null ? "run:" + runId : "actor:" + actor);
      return new CanonicalActionRecord(r);
    }

    private String secretValue(JsonNode value) {
      if (value == null || value.isNull()) {
        return key.hmac(new byte[0]);
      }
      return key.hmac(value.isTextual() ? value.asText() : ExactJson.canonical(value));
    }

    /**
     * scheme://host[:port]/path of the rendered URL: no query, no fragment, no user info. Rendered
     * by {@link UrlTemplate}, the same rendering the HTTP channel sends, so the target is the URL
     * that leaves (a secret placeholder stays {@code {{name}}}, its value checked all the same).
     *
     * @throws UrlTemplate.InvalidUrlException if the arguments cannot make a URL that is sent as
     *     rendered ({@link ArgumentValidator} refuses such calls first)
     */
    private String httpTarget(String urlTemplate, Set<String> secret) {
      String rendered = UrlTemplate.render(urlTemplate, "url", name -> urlText(arguments, name, "url"), secret);
      String probe = rendered.replace("{{", "%7B%7B").replace("}}", "%7D%7D");
      try {
        URI u = new URI(probe);
        if (u.getScheme() == null || u.getHost() == null) {
          throw new URISyntaxException(probe, "no scheme or host");
        }
        String scheme = u.getScheme().toLowerCase(Locale.ROOT);
        int port = u.getPort();
        boolean defaultPort = port == -1 || (scheme.equals("http") && port == 80) || (scheme.equals("https") && port == 443);
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        path = path.replace("%7B%7B", "{{").replace("%7D%7D", "}}");
        return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port) + path;
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("cannot render target of " + contract.tool() + ": invalid URL");
      }
    }

    /** An upstream MCP tool: the server (URL without query or user info, or the stdio argv) and the tool. */
    private void putMcpTarget(ObjectNode r, io.onceport.workflow.contract.McpSpec mcp) {
      r.put("channel", "mcp");
      if (mcp.url() != null) {
        r.put("target", httpTarget(mcp.url(), Set.of()));
      } else {
        r.put("target", mcp.target());
        mcp.command().forEach(r.putArray("command")::add);
      }
      putIfNotNull(r, "credential_ref", mcp.credential());
      r.put("method", "tools/call");
      r.put("upstream_tool", mcp.tool());
    }

    private void putIfNotNull(ObjectNode r, String field, String value) {
      if (value != null) {
        r.put(field, value);
      }
    }
  }

  interface Values {
    String valueOf(String name);
  }

  static String substitute(String template, Values values) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(sb, Matcher.quoteReplacement(values.valueOf(m.group(1))));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  /**
   * Whether a rendered URL is one {@link Builder#httpTarget} can name: it parses and has a scheme
   * and a host. {@link ArgumentValidator} refuses arguments that make any other URL.
   */
  static boolean hasHost(String rendered) {
    try {
      URI u = new URI(rendered);
      return u.getScheme() != null && u.getHost() != null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /**
   * A URL placeholder's text as the HTTP channel renders it: strings as-is, other scalars as JSON,
   * missing or null as null (refused by {@link UrlTemplate}), objects and arrays refused. A number
   * with a fraction or exponent renders as the double it denotes, as the channel (which reads the
   * arguments with doubles) renders it, and as it always has, so these fingerprints do not change.
   */
  static String urlText(JsonNode arguments, String name, String where) {
    JsonNode v = arguments.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isContainerNode()) {
      throw UrlTemplate.InvalidUrlException.notScalar(name, where, v.getNodeType().name().toLowerCase(Locale.ROOT));
    }
    return v.isTextual() ? v.asText() : asDoubles(v).toString();
  }

  /**
   * The text a placeholder renders to: strings as-is, other values as JSON, missing as "". A number
   * with a fraction or exponent renders as the double it denotes, as it always has (and as the
   * dispatch activity renders command placeholders), so these fingerprints do not change.
   */
  static String text(JsonNode v) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      return "";
    }
    return v.isTextual() ? v.asText() : asDoubles(v).toString();
  }

  /** A copy with every decimal as the double it denotes: how a default-configured parser reads it. */
  private static JsonNode asDoubles(JsonNode v) {
    if (v.isBigDecimal()) {
      return DoubleNode.valueOf(Double.parseDouble(v.decimalValue().toString()));
    }
    if (v.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      v.fields().forEachRemaining(e -> out.set(e.getKey(), asDoubles(e.getValue())));
      return out;
    }
    if (v.isArray()) {
      com.fasterxml.jackson.databind.node.ArrayNode out = JsonNodeFactory.instance.arrayNode();
      v.forEach(e -> out.add(asDoubles(e)));
      return out;
    }
    return v;
  }
}
