package io.onceport.activity.http;

import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.Credentials;
import okhttp3.EventListener;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okhttp3.internal.http.HttpMethod;

/**
 * Sends HTTP tool calls with OkHttp and classifies every failure by what crossed the wire.
 *
 * <p>An {@link EventListener} per call records whether OkHttp began writing the request headers.
 * An {@code IOException} before that point (DNS, connection refused, connect timeout, TLS) means
 * the target cannot have seen the request: {@code NOT_SENT}, retryable. After it, bytes may have
 * reached the target and the answer was lost: {@code OUTCOME_UNKNOWN}, non-retryable, so the
 * execution's replay class decides. To keep that classification honest the dispatch client never
 * retries a connection ({@code retryOnConnectionFailure(false)}), never follows a redirect for a
 * method other than GET/HEAD (a redirect would be a second request), and never reuses a pooled
 * connection (a stale pooled socket would turn an unsent request into an unknown one).
 *
 * <p>{@link DispatchContext#beforeSend()} runs in a network interceptor: after the connection is
 * established, before the first request byte. If it throws, nothing is written and its failure
 * propagates unchanged.
 *
 * <p>Result headers kept (lower-cased): {@link #SELECTED_HEADERS} plus the contract's idempotency
 * header. Bodies are decoded with the response charset (UTF-8 by default) and capped at
 * {@link DispatchResult#BODY_CAP} characters. Failure messages name the method and URL (without its
 * query) and never a credential.
 */
public final class HttpChannel implements DispatchChannel {
  /** Response headers copied into the result. */
  public static final List<String> SELECTED_HEADERS =
      List.of(
          "content-type",
          "location",
          "etag",
          "last-modified",
          "retry-after",
          "idempotency-key",
          "idempotent-replayed",
          "x-idempotent-replayed",
          "x-request-id");

  private static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  private final OkHttpClient base;
  private final OkHttpClient dispatchBase;

  public HttpChannel() {
    this(new OkHttpClient());
  }

  /** @param base shares its dispatcher and TLS settings; dispatches get their own settings on top */
  public HttpChannel(OkHttpClient base) {
    this.base = Objects.requireNonNull(base, "base == null");
    this.dispatchBase =
        base.newBuilder()
            .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
            .retryOnConnectionFailure(false)
            .build();
  }

  private HttpChannel(OkHttpClient base, OkHttpClient dispatchBase) {
    this.base = base;
    this.dispatchBase = dispatchBase;
  }

  /**
   * A channel for {@code read_only} calls answered without an execution (the front end's read
   * path): the same requests, templates, credentials and redirect rules as {@link #dispatch}, but
   * connections are pooled and OkHttp may repeat a request on a stale pooled connection. That is
   * safe only because a read changes nothing: never use this channel for a side-effecting tool.
   */
  public static HttpChannel forReads() {
    OkHttpClient pooled = new OkHttpClient.Builder().connectionPool(new ConnectionPool(16, 1, TimeUnit.MINUTES)).build();
    return new HttpChannel(pooled, pooled);
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request, DispatchContext context) {
    HttpSpec spec = httpSpec(request);
    HttpTemplates templates = new HttpTemplates(request.arguments(), request.executionId());
    String method = spec.method().toUpperCase(Locale.ROOT);
    Request.Builder builder = newRequest(method, templates.url(spec.url()));
    applyHeaders(builder, spec, templates, context);
    if (spec.idempotencyHeader() != null) {
      setHeader(builder, spec.idempotencyHeader(), request.executionId());
    }
    setMethod(builder, method, bodyFor(method, spec, templates));
    Request httpRequest = builder.build();

    boolean safe = method.equals("GET") || method.equals("HEAD");
    WireListener wire = new WireListener();
    BeforeSend beforeSend = new BeforeSend(context);
    OkHttpClient client =
        withTimeouts(dispatchBase.newBuilder(), spec.timeoutMillis())
            .followRedirects(safe)
            .followSslRedirects(safe)
            .eventListener(wire)
            .addNetworkInterceptor(
                chain -> {
                  beforeSend.run();
                  return chain.proceed(chain.request());
                })
            .build();

    context.heartbeat("connecting");
    long start = System.nanoTime();
    try (Response response = client.newCall(httpRequest).execute()) {
      context.heartbeat("reading response");
      return toResult(response, spec.idempotencyHeader(), start);
    } catch (IOException e) {
      beforeSend.rethrowFailure();
      String what = method + " " + redacted(httpRequest.url());
      if (wire.requestStarted) {
        throw ApplicationFailure.newNonRetryableFailure(
            what + ": request may have reached the target, no response observed (" + e + ")",
            ErrorTypes.OUTCOME_UNKNOWN);
      }
      throw ApplicationFailure.newFailure(
          what + ": request not sent (" + e + ")", ErrorTypes.NOT_SENT);
    }
  }

  @Override
  public StatusResult queryStatus(DispatchRequest request, DispatchContext context) {
    HttpSpec spec = httpSpec(request);
    StatusSpec status = request.contract().replay().status();
    if (status == null) {
      throw HttpTemplates.invalid(
          "Tool " + request.contract().tool() + " has no replay.status section to query");
    }
    HttpTemplates templates = new HttpTemplates(request.arguments(), request.executionId());
    String method = status.method().toUpperCase(Locale.ROOT);
    Request.Builder builder = newRequest(method, templates.url(status.url()));
    applyHeaders(builder, spec, templates, context);
    setMethod(builder, method, HttpMethod.requiresRequestBody(method) ? RequestBody.create("{}", JSON) : null);
    Request httpRequest = builder.build();

    WireListener wire = new WireListener();
    OkHttpClient client =
        withTimeouts(base.newBuilder(), spec.timeoutMillis()).eventListener(wire).build();
    context.heartbeat("querying status");
    long start = System.nanoTime();
    DispatchResult result;
    try (Response response = client.newCall(httpRequest).execute()) {
      result = toResult(response, spec.idempotencyHeader(), start);
    } catch (IOException e) {
      // A status query is a read: any failure may simply be retried.
      String message = "status query " + method + " " + redacted(httpRequest.url()) + " failed (" + e + ")";
      throw ApplicationFailure.newFailure(
          message, wire.requestStarted ? IOException.class.getName() : ErrorTypes.NOT_SENT);
    }
    int code = result.status();
    if (status.completedWhen().contains(code)) {
      return new StatusResult(StatusResult.Verdict.COMPLETED, result, "status endpoint answered " + code);
    }
    if (status.notExecutedWhen().contains(code)) {
      return new StatusResult(StatusResult.Verdict.NOT_EXECUTED, result, "status endpoint answered " + code);
    }
    return new StatusResult(
        StatusResult.Verdict.UNKNOWN,
        result,
        "status endpoint answered " + code + ", which is in neither completed_when "
            + status.completedWhen() + " nor not_executed_when " + status.notExecutedWhen());
  }

  private static HttpSpec httpSpec(DispatchRequest request) {
    ToolContract contract = request.contract();
    if (contract.channel() != ToolContract.Channel.HTTP || contract.http() == null) {
      throw HttpTemplates.invalid("Tool " + contract.tool() + " is not an http tool");
    }
    return contract.http();
  }

  private static OkHttpClient.Builder withTimeouts(OkHttpClient.Builder builder, long timeoutMillis) {
    Duration timeout = Duration.ofMillis(timeoutMillis);
    return builder
        .callTimeout(timeout)
        .connectTimeout(timeout)
        .readTimeout(timeout)
        .writeTimeout(timeout);
  }

  private static Request.Builder newRequest(String method, String url) {
    HttpUrl parsed = HttpUrl.parse(url);
    if (parsed == null) {
      throw HttpTemplates.invalid("Invalid " + method + " URL after rendering: " + url);
    }
    return new Request.Builder().url(parsed);
  }

  private static RequestBody bodyFor(String method, HttpSpec spec, HttpTemplates templates) {
    if (spec.body() == null && !HttpMethod.requiresRequestBody(method)) {
      return null; // GET, HEAD, DELETE...: arguments travel in the URL
    }
    String contentType = spec.headers().entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase("content-type"))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(null);
    MediaType type = contentType == null ? JSON : MediaType.parse(contentType);
    return RequestBody.create(templates.body(spec.body()).getBytes(StandardCharsets.UTF_8), type == null ? JSON : type);
  }

  private static void setMethod(Request.Builder builder, String method, RequestBody body) {
    try {
      builder.method(method, body);
    } catch (IllegalArgumentException e) {
      throw HttpTemplates.invalid("Invalid request: " + e.getMessage());
    }
  }

  private static void applyHeaders(
      Request.Builder builder, HttpSpec spec, HttpTemplates templates, DispatchContext context) {
    spec.headers().forEach((name, value) -> setHeader(builder, name, templates.text(value, "header " + name)));
    if (spec.credential() != null) {
      applyCredential(builder, spec.credential(), context.credential(spec.credential()));
    }
  }

  private static void setHeader(Request.Builder builder, String name, String value) {
    try {
      builder.header(name, value);
    } catch (IllegalArgumentException e) {
      throw HttpTemplates.invalid("Invalid header " + name + ": " + e.getMessage());
    }
  }

  private static void applyCredential(Request.Builder builder, String reference, Credential credential) {
    String name;
    String value;
    switch (credential.type()) {
      case BEARER -> {
        name = "Authorization";
        value = "Bearer " + credential.secret();
      }
      case BASIC -> {
        name = "Authorization";
        value = Credentials.basic(
            credential.username() == null ? "" : credential.username(), credential.secret(), StandardCharsets.UTF_8);
      }
      case HEADER -> {
        if (credential.headerName() == null) {
          throw HttpTemplates.invalid("Credential '" + reference + "' of type header names no header");
        }
        name = credential.headerName();
        value = credential.secret();
      }
      default -> throw HttpTemplates.invalid(
          "Credential '" + reference + "' is of type " + credential.type().wireName()
              + " and cannot authenticate an HTTP request");
    }
    try {
      builder.header(name, value);
    } catch (IllegalArgumentException e) {
      // OkHttp's message may quote the value: never let it near a log.
      throw HttpTemplates.invalid(
          "Credential '" + reference + "' does not fit in header " + name + " (invalid characters)");
    }
  }

  private static DispatchResult toResult(Response response, String idempotencyHeader, long startNanos) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : SELECTED_HEADERS) {
      String value = response.header(name);
      if (value != null) {
        headers.put(name, value);
      }
    }
    if (idempotencyHeader != null) {
      String value = response.header(idempotencyHeader);
      if (value != null) {
        headers.put(idempotencyHeader.toLowerCase(Locale.ROOT), value);
      }
    }
    StringBuilder body = new StringBuilder();
    boolean truncated = false;
    ResponseBody responseBody = response.body();
    try (Reader reader = responseBody.charStream()) {
      char[] buffer = new char[8192];
      int n;
      while ((n = reader.read(buffer)) != -1) {
        body.append(buffer, 0, n);
        if (body.length() > DispatchResult.BODY_CAP) {
          body.setLength(DispatchResult.BODY_CAP);
          truncated = true;
          break;
        }
      }
    } catch (IOException e) {
      // The status line arrived, so the target answered; keep what was read and say it is partial.
      truncated = true;
    }
    long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    return DispatchResult.http(response.code(), headers, body.toString(), truncated, elapsed);
  }

  private static String redacted(HttpUrl url) {
    return url.newBuilder().query(null).fragment(null).username("").password("").build().toString();
  }

  /** Records whether request bytes may have left: set when OkHttp starts writing the request. */
  private static final class WireListener extends EventListener {
    volatile boolean requestStarted;

    @Override
    public void requestHeadersStart(Call call) {
      requestStarted = true;
    }

    @Override
    public void requestBodyStart(Call call) {
      requestStarted = true;
    }
  }

  /**
   * Runs {@code beforeSend} once; if it fails, remembers the failure so it propagates unchanged
   * even if OkHttp wraps exceptions thrown by interceptors.
   */
  private static final class BeforeSend {
    private final DispatchContext context;
    private boolean done;
    private RuntimeException failure;

    BeforeSend(DispatchContext context) {
      this.context = context;
    }

    void run() throws IOException {
      if (done) {
        return;
      }
      try {
        context.beforeSend();
        done = true;
      } catch (RuntimeException e) {
        failure = e;
        throw new IOException("beforeSend failed; nothing sent", e);
      }
    }

    void rethrowFailure() {
      if (failure != null) {
        throw failure;
      }
    }
  }
}
