package io.onceport.activity.mcp;

import io.onceport.workflow.contract.McpSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import okhttp3.OkHttpClient;
import org.slf4j.LoggerFactory;

/**
 * The upstream servers of one worker, one {@link McpUpstream} per server (URL and credential
 * reference, or argv with its environment and directory), created on first use and closed with
 * the worker. A stdio server is
 * therefore one supervised process shared by every execution that calls it.
 */
public final class McpUpstreams implements AutoCloseable {
  /** Logs an upstream's {@code notifications/tools/list_changed}; the contracts are never changed by it. */
  public static final Consumer<String> LOG_LIST_CHANGED = upstream -> LoggerFactory.getLogger(McpUpstreams.class).warn(
      "{} says its tool list changed; contracts are not updated automatically: run `onceport contracts check --upstream` "
          + "to see what differs, and re-import to adopt it", upstream);

  private final OkHttpClient http;
  private final Consumer<String> listChanged;
  private final Map<String, McpUpstream> upstreams = new ConcurrentHashMap<>();

  public McpUpstreams() {
    this(new OkHttpClient(), LOG_LIST_CHANGED);
  }

  public McpUpstreams(OkHttpClient http, Consumer<String> listChanged) {
    this.http = Objects.requireNonNull(http, "http == null");
    this.listChanged = Objects.requireNonNull(listChanged, "listChanged == null");
  }

  /** The upstream a contract names. */
  public McpUpstream forSpec(McpSpec spec) {
    if (spec.url() != null) {
      // One session per server and credential: a server may bind a session to who opened it.
      return upstreams.computeIfAbsent("url " + spec.url() + " as " + spec.credential(),
          k -> new HttpUpstream(spec.url(), http, listChanged));
    }
    String key = "stdio " + spec.command() + " " + spec.env() + " " + spec.workingDir();
    return upstreams.computeIfAbsent(key, k -> new StdioUpstream(spec.command(), spec.env(), spec.workingDir(), listChanged));
  }

  /** A Streamable HTTP upstream for one-off use (import, checks); the caller closes it. */
  public static McpUpstream http(String url) {
    return new HttpUpstream(url, new OkHttpClient(), LOG_LIST_CHANGED);
  }

  /** A stdio upstream for one-off use (import, checks); the caller closes it, which ends the process. */
  public static McpUpstream stdio(List<String> command, Map<String, String> env, String workingDir) {
    return new StdioUpstream(command, env, workingDir, LOG_LIST_CHANGED);
  }

  /** The pid of a running stdio upstream, or -1 (tests kill it to prove supervision). */
  public long pidOf(McpSpec spec) {
    McpUpstream u = upstreams.get("stdio " + spec.command() + " " + spec.env() + " " + spec.workingDir());
    return u instanceof StdioUpstream s ? s.pid() : -1;
  }

  @Override
  public void close() {
    upstreams.values().forEach(McpUpstream::close);
    upstreams.clear();
  }
}
