package io.onceport.activity.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.EventListener;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An upstream over Streamable HTTP, on OkHttp. Every request is one POST on a fresh connection
 * (no pool: a stale pooled socket would turn an unsent request into one of unknown outcome), with
 * {@code retryOnConnectionFailure} off and redirects not followed (a redirect would be a second
 * request). An {@link EventListener} notes when OkHttp starts writing the request: a failure
 * before that is {@code NOT_SENT}, after it {@code UNKNOWN}. Answers may be JSON or an SSE stream;
 * in a stream, notifications are handed to the caller until the response with the request's id.
 *
 * <p>A response stream that breaks after the server gave its events ids is <em>resumed</em>, not
 * re-sent: a GET with {@code Last-Event-ID} asks the server to replay what followed (the MCP
 * transport's resumption; servers with an event store support it), up to {@link #MAX_RESUMES}
 * times within the request's timeout. Only if that fails is the outcome unknown.
 *
 * <p>Answers and events are read only up to {@link McpUpstream#MESSAGE_CAP} (lines and bodies
 * stop there before buffering more): a larger one is an unknown outcome saying "too large".
 *
 * <p>The session from {@code initialize} is kept and shared; a 404 to a request carrying it means
 * the server forgot it ({@link McpFailure.Stage#SESSION_GONE}) and the next call initializes anew.
 */
final class HttpUpstream implements McpUpstream {
  private static final Logger LOG = LoggerFactory.getLogger(HttpUpstream.class);
  private static final MediaType JSON_TYPE = MediaType.get("application/json");
  /** Resumptions of one broken response stream before its outcome is unknown. */
  static final int MAX_RESUMES = 3;
  /** An error answer's body is only quoted (abbreviated to 200 characters): no more of it is read. */
  private static final long ERROR_BODY_CAP = 64 * 1024;

  private final HttpUrl url;
  private final OkHttpClient client;
  private final Consumer<String> listChanged;
  private final AtomicLong ids = new AtomicLong();
  private McpSession session;

  HttpUpstream(String url, OkHttpClient base, Consumer<String> listChanged) {
    this.url = Objects.requireNonNull(HttpUrl.parse(url), () -> "not an http(s) URL: " + url);
    this.client = base.newBuilder()
        .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
        .retryOnConnectionFailure(false)
        .followRedirects(false)
        .followSslRedirects(false)
        .build();
    this.listChanged = listChanged;
  }

  @Override
  public String describe() {
    return url.newBuilder().query(null).username("").password("").build().toString();
  }

  @Override
  public synchronized McpSession session(Map<String, String> headers, long timeoutMillis) throws McpFailure {
    if (session != null) {
      return session;
    }
    ObjectNode params = JSON.createObjectNode();
    params.put("protocolVersion", PROTOCOL_VERSION);
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "onceport").put("version", "1");
    McpSession none = new McpSession(null, PROTOCOL_VERSION, JSON.createObjectNode(), JSON.createObjectNode());
    Answer a;
    try {
      a = request(none, headers, "initialize", params, () -> {}, n -> {}, timeoutMillis);
    } catch (McpFailure e) {
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": initialize failed: " + e.getMessage(), e);
    }
    JsonNode result = a.isRpc() ? a.message().get("result") : null;
    if (result == null || !result.isObject()) {
      String why = !a.isRpc() ? "HTTP " + a.httpStatus() + " " + abbreviate(a.httpBody()) : String.valueOf(a.message().get("error"));
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": initialize was refused: " + why);
    }
    String version = result.path("protocolVersion").asText("");
    if (!KNOWN_VERSIONS.contains(version)) {
      throw new McpFailure(McpFailure.Stage.NOT_SENT,
          describe() + ": the server speaks protocol version '" + version + "', not one of " + KNOWN_VERSIONS);
    }
    McpSession s = new McpSession(a.sessionId(), version, result.path("capabilities"), result.path("serverInfo"));
    notifyInitialized(s, headers, timeoutMillis);
    session = s;
    return s;
  }

  @Override
  public synchronized void invalidate(McpSession stale) {
    if (session == stale || (session != null && stale != null && Objects.equals(session.sessionId(), stale.sessionId()))) {
      session = null;
    }
  }

  private void notifyInitialized(McpSession s, Map<String, String> headers, long timeoutMillis) throws McpFailure {
    ObjectNode note = JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/initialized");
    Request r = post(s, headers, note).build();
    try (Response response = withTimeout(client.newBuilder(), timeoutMillis).build().newCall(r).execute()) {
      if (response.code() / 100 != 2) {
        throw new McpFailure(McpFailure.Stage.NOT_SENT,
            describe() + ": notifications/initialized answered HTTP " + response.code());
      }
    } catch (IOException e) {
      if (e instanceof McpFailure f) {
        throw f;
      }
      throw new McpFailure(McpFailure.Stage.NOT_SENT, describe() + ": notifications/initialized failed (" + e + ")", e);
    }
  }

  @Override
  public Answer request(McpSession s, Map<String, String> headers, String method, ObjectNode params,
      Runnable beforeWrite, Consumer<JsonNode> notifications, long timeoutMillis) throws McpFailure {
    String id = "onceport-" + ids.incrementAndGet();
    ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    message.set("params", params);
    Request r = post(s, headers, message).build();
    Wire wire = new Wire();
    BeforeWrite hook = new BeforeWrite(beforeWrite);
    OkHttpClient call = withTimeout(client.newBuilder(), timeoutMillis)
        .eventListener(wire)
        .addNetworkInterceptor(chain -> {
          hook.run();
          return chain.proceed(chain.request());
        })
        .build();
    String what = method + " to " + describe();
    try (Response response = call.newCall(r).execute()) {
      if (response.code() == 404 && s.sessionId() != null) {
        throw new McpFailure(McpFailure.Stage.SESSION_GONE, what + ": HTTP 404, the server no longer knows session "
            + s.sessionId() + " and did not process the request");
      }
      String contentType = response.header("Content-Type", "");
      if (response.code() / 100 != 2) {
        return new Answer(null, response.code(), CappedReads.prefix(response.body().source(), ERROR_BODY_CAP));
      }
      String assigned = response.header("Mcp-Session-Id");
      if (contentType.startsWith("text/event-stream")) {
        Resume resume = new Resume(s, headers, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
        return new Answer(readStream(response.body().source(), id, notifications, what, resume), response.code(), null, assigned);
      }
      if (response.code() == 202) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": HTTP 202 without a response");
      }
      return new Answer(readJson(response, what), response.code(), null, assigned);
    } catch (McpFailure f) {
      throw f;
    } catch (IOException e) {
      hook.rethrow();
      if (wire.started) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": the request may have reached the server, no answer ("
            + e + ")", e);
      }
      throw new McpFailure(McpFailure.Stage.NOT_SENT, what + ": not sent (" + e + ")", e);
    }
  }

  private Request.Builder post(McpSession s, Map<String, String> headers, ObjectNode message) {
    Request.Builder b = new Request.Builder().url(url)
        .header("Accept", "application/json, text/event-stream")
        .post(RequestBody.create(message.toString().getBytes(StandardCharsets.UTF_8), JSON_TYPE));
    headers.forEach(b::header);
    if (s.sessionId() != null) {
      b.header("Mcp-Session-Id", s.sessionId());
    }
    if (!"initialize".equals(message.path("method").asText())) {
      b.header("MCP-Protocol-Version", s.protocolVersion());
    }
    return b;
  }

  private static OkHttpClient.Builder withTimeout(OkHttpClient.Builder b, long timeoutMillis) {
    Duration t = Duration.ofMillis(timeoutMillis);
    return b.callTimeout(t).connectTimeout(t).readTimeout(t).writeTimeout(t);
  }

  private JsonNode readJson(Response response, String what) throws McpFailure {
    String body;
    try {
      body = CappedReads.whole(response.body().source(), what);
    } catch (McpFailure f) {
      throw f;
    } catch (IOException e) {
      throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": the answer broke off (" + e + ")", e);
    }
    try {
      JsonNode m = JSON.readTree(body);
      if (m == null || !m.isObject() || !(m.has("result") || m.has("error"))) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": the answer is not a JSON-RPC response: " + abbreviate(body));
      }
      return m;
    } catch (IOException e) {
      if (e instanceof McpFailure f) {
        throw f;
      }
      throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": the answer is not JSON: " + abbreviate(body), e);
    }
  }

  /** What resuming a broken stream needs: the session, the headers, the request's deadline, the last event id. */
  private static final class Resume {
    final McpSession session;
    final Map<String, String> headers;
    final long deadlineNanos;
    String lastEventId;
    int resumes;

    Resume(McpSession session, Map<String, String> headers, long deadlineNanos) {
      this.session = session;
      this.headers = headers;
      this.deadlineNanos = deadlineNanos;
    }
  }

  /**
   * Reads SSE events until the response to {@code id}. A stream that ends or breaks first is
   * resumed from its last event id when it had one; otherwise (or when resuming fails) the outcome
   * is unknown.
   */
  private JsonNode readStream(BufferedSource source, String id, Consumer<JsonNode> notifications, String what, Resume resume)
      throws McpFailure {
    try {
      return readEvents(source, id, notifications, what, resume);
    } catch (McpFailure broken) {
      if (broken.stage() != McpFailure.Stage.UNKNOWN || CappedReads.isTooLarge(broken) || resume.lastEventId == null
          || resume.resumes >= MAX_RESUMES) {
        throw broken;
      }
      long left = TimeUnit.NANOSECONDS.toMillis(resume.deadlineNanos - System.nanoTime());
      if (left <= 0) {
        throw broken;
      }
      resume.resumes++;
      Request.Builder get = new Request.Builder().url(url).get()
          .header("Accept", "text/event-stream")
          .header("Last-Event-ID", resume.lastEventId)
          .header("MCP-Protocol-Version", resume.session.protocolVersion());
      resume.headers.forEach(get::header);
      if (resume.session.sessionId() != null) {
        get.header("Mcp-Session-Id", resume.session.sessionId());
      }
      LOG.info("{}: resuming a broken response stream after event {} ({})", describe(), resume.lastEventId, broken.getMessage());
      Response response;
      try {
        response = withTimeout(client.newBuilder(), left).build().newCall(get.build()).execute();
      } catch (IOException e) {
        throw new McpFailure(McpFailure.Stage.UNKNOWN, broken.getMessage() + "; resuming it failed (" + e + ")", e);
      }
      try (response) {
        if (response.code() != 200 || !response.header("Content-Type", "").startsWith("text/event-stream")) {
          throw new McpFailure(McpFailure.Stage.UNKNOWN, broken.getMessage() + "; the server did not resume it (HTTP "
              + response.code() + ")");
        }
        return readStream(response.body().source(), id, notifications, what, resume);
      }
    }
  }

  private JsonNode readEvents(BufferedSource source, String id, Consumer<JsonNode> notifications, String what, Resume resume)
      throws McpFailure {
    StringBuilder data = new StringBuilder();
    String pendingId = null;
    try {
      while (true) {
        String line = CappedReads.line(source, MESSAGE_CAP + "data: ".length(), what);
        if (line == null) {
          throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": the event stream ended before the response");
        }
        if (line.startsWith("id:")) {
          pendingId = line.substring(3).strip();
          continue;
        }
        if (line.isEmpty()) {
          if (pendingId != null && !pendingId.isEmpty()) {
            resume.lastEventId = pendingId; // an event counts as received once it is complete
          }
          pendingId = null;
          if (data.length() > 0) {
            JsonNode m = parseEvent(data.toString());
            data.setLength(0);
            if (m != null && m.has("id") && id.equals(m.get("id").asText()) && (m.has("result") || m.has("error"))) {
              return m;
            }
            otherMessage(m, notifications);
          }
        } else if (line.startsWith("data:")) {
          String part = line.startsWith("data: ") ? line.substring(6) : line.substring(5);
          if (data.length() + 1 + part.length() > MESSAGE_CAP) {
            throw CappedReads.tooLarge(what, "an event of the response stream");
          }
          if (data.length() > 0) {
            data.append('\n');
          }
          data.append(part);
        }
      }
    } catch (McpFailure f) {
      throw f;
    } catch (IOException e) {
      throw new McpFailure(McpFailure.Stage.UNKNOWN, what + ": the event stream broke off before the response (" + e + ")", e);
    }
  }

  /** A message on the stream that is not the response: a notification is passed on (a tool list change announced), a request ignored. */
  private void otherMessage(JsonNode m, Consumer<JsonNode> notifications) {
    if (m != null && m.has("method") && !m.has("id")) {
      if ("notifications/tools/list_changed".equals(m.get("method").asText())) {
        listChanged.accept(describe());
      }
      notifications.accept(m);
    } else if (m != null && m.has("method")) {
      LOG.warn("{}: ignoring the server's request {} (Onceport offers no client capabilities)", describe(),
          m.get("method").asText());
    }
  }

  private static JsonNode parseEvent(String data) {
    try {
      JsonNode m = JSON.readTree(data);
      return m != null && m.isObject() ? m : null;
    } catch (IOException e) {
      return null;
    }
  }

  static String abbreviate(String s) {
    if (s == null) {
      return "";
    }
    String one = s.replaceAll("\\s+", " ").trim();
    return one.length() <= 200 ? one : one.substring(0, 200) + "…";
  }

  @Override
  public void close() {
    // no pooled connections, nothing held open
  }

  /** Set when OkHttp begins writing the request: from then on, bytes may have reached the server. */
  private static final class Wire extends EventListener {
    volatile boolean started;

    @Override
    public void requestHeadersStart(Call call) {
      started = true;
    }

    @Override
    public void requestBodyStart(Call call) {
      started = true;
    }
  }
}
