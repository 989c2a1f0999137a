package io.onceport.activity.http;

import static io.onceport.activity.http.HttpAnswers.toResult;
import static io.onceport.activity.http.HttpRequests.JSON;
import static io.onceport.activity.http.HttpRequests.applyHeaders;
import static io.onceport.activity.http.HttpRequests.bodyFor;
import static io.onceport.activity.http.HttpRequests.credential;
import static io.onceport.activity.http.HttpRequests.httpSpec;
import static io.onceport.activity.http.HttpRequests.newRequest;
import static io.onceport.activity.http.HttpRequests.requiresBody;
import static io.onceport.activity.http.HttpRequests.setHeader;
import static io.onceport.activity.http.HttpRequests.setMethod;

import io.onceport.activity.dispatch.DispatchChannel;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.Authenticator;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.EventListener;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Sends HTTP tool calls with OkHttp and classifies every failure by what crossed the wire.
 *
 * <p>An {@link EventListener} per call records whether OkHttp began writing the request headers.
 * An {@code IOException} before that point (DNS, connection refused, connect timeout, TLS) means
 * the target cannot have seen the request: {@code NOT_SENT}, retryable. After it, bytes may have
 * reached the target and the answer was lost: {@code OUTCOME_UNKNOWN}, non-retryable, so the
 * execution's replay class decides.
 *
 * <p><b>No hidden re-sends.</b> Every request that leaves is one the workflow decided and the
 * journal recorded. The client never retries a connection ({@code retryOnConnectionFailure(false)}),
 * never reuses a pooled connection (a stale pooled socket would turn an unsent request into an
 * unknown one), has no authenticators and follows no redirects; and because OkHttp's follow-up
 * logic re-sends some answers regardless of those switches (503 with {@code Retry-After: 0}),
 * every call runs through {@link SingleExchange}: the first answer is the result, whatever its
 * status, and a second exchange within one call is refused before a byte is written and fails the
 * dispatch loudly ({@code OUTCOME_UNKNOWN}: the first request was sent, its answer is gone).
 *
 * <p><b>Redirects and credentials.</b> A dispatch follows no redirect: a 3xx is the answer, kept
 * with its {@code location}, so a credential can never travel to another origin and nothing is
 * sent that the workflow did not decide. A status query (a read) follows at most {@link
 * #MAX_STATUS_REDIRECTS} redirects, only for GET/HEAD and only within the origin (scheme, host,
 * port) it was configured for; a redirect elsewhere is not followed and its 3xx is the status
 * answer. Credentials therefore only ever go to the origin of the contract's URL.
 *
 * <p><b>Redaction.</b> The secret of the request's credential is removed from the result's body
 * and headers before the result leaves the channel (see {@link SecretRedactor}); the result's
 * {@code redacted} lists the credential references that were found.
 *
 * <p>{@link DispatchContext#beforeSend()} runs in a network interceptor: after the connection is
 * established, before the first request byte. If it throws, nothing is written and its failure
 * propagates unchanged.
 *
 * <p>Result headers kept (lower-cased): {@link #SELECTED_HEADERS} plus the contract's idempotency
 * header. Bodies are decoded with the response charset (UTF-8 by default) and capped at
 * {@link DispatchResult#BODY_CAP} characters. Failure messages name the method and URL (without its
 * query) and never a credential. {@link HttpRequests} builds the request from the contract, {@link
 * HttpAnswers} reads the answer into the result.
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

  /** Same-origin redirects a GET/HEAD status query follows before taking the 3xx as its answer. */
  public static final int MAX_STATUS_REDIRECTS = 5;

  private final OkHttpClient strict;

  public HttpChannel() {
    this(new OkHttpClient());
  }

  /**
   * @param base shares its dispatcher, TLS settings and interceptors; every call gets the strict
   *     settings above on top (interceptors included: one that retries is refused its second request)
   */
  public HttpChannel(OkHttpClient base) {
    Objects.requireNonNull(base, "base == null");
    this.strict =
        base.newBuilder()
            .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
            .retryOnConnectionFailure(false)
            .followRedirects(false)
            .followSslRedirects(false)
            .authenticator(Authenticator.NONE)
            .proxyAuthenticator(Authenticator.NONE)
            .build();
  }

  /** @param strict used as is: the caller applied every strict setting it wants */
  private HttpChannel(OkHttpClient strict, boolean prepared) {
    this.strict = Objects.requireNonNull(strict, "strict == null");
  }

  /**
   * A channel for {@code read_only} calls answered without an execution (the front end's read
   * path): the same requests, templates, credentials, redirect rules and single exchange as {@link
   * #dispatch}, but connections are kept in a pool and reused. Pooling is the only difference: a
   * stale pooled connection fails like any other send (not sent / outcome unknown), and the read
   * path asks again, which is safe only because a read changes nothing. Never use this channel for
   * a side-effecting tool, whose dispatches keep a fresh connection each.
   */
  public static HttpChannel forReads() {
    return new HttpChannel(new HttpChannel().strict.newBuilder()
        .connectionPool(new ConnectionPool(16, 1, TimeUnit.MINUTES))
        .build(), true);
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request, DispatchContext context) {
    HttpSpec spec = httpSpec(request);
    HttpTemplates templates = new HttpTemplates(request.arguments(), request.executionId(), request.contract().fingerprintSecret());
    String method = spec.method().toUpperCase(Locale.ROOT);
    Request.Builder builder = newRequest(method, templates.url(spec.url(), "url"), spec.url());
    SecretRedactor redactor = applyHeaders(builder, spec, templates, credential(spec, context));
    if (spec.idempotencyHeader() != null) {
      setHeader(builder, spec.idempotencyHeader(), request.executionId(), "{{execution_id}}");
    }
    String traceparent = context.traceparent();
    if (traceparent != null && builder.build().header("traceparent") == null) {
      builder.header("traceparent", traceparent); // the send's span: the target joins the trace (nothing else of it)
    }
    setMethod(builder, method, bodyFor(method, spec, templates));
    Request httpRequest = builder.build();

    WireListener wire = new WireListener();
    SingleExchange exchange = new SingleExchange(context::beforeSend);
    OkHttpClient client = exchange.install(withTimeouts(strict.newBuilder(), spec.timeoutMillis()))
        .eventListener(wire)
        .build();

    context.heartbeat("connecting");
    long start = System.nanoTime();
    try (Response response = client.newCall(httpRequest).execute()) {
      context.heartbeat("reading response");
      return toResult(response, spec.idempotencyHeader(), start, redactor);
    } catch (IOException e) {
      exchange.rethrowBeforeSendFailure();
      // The URL as the fingerprint shows it (secret arguments as {{name}}); the exception's text scrubbed of them too.
      String what = method + " " + templates.shownUrl(spec.url(), "url");
      if (exchange.refusedSecondRequest()) {
        throw ApplicationFailure.newNonRetryableFailure(templates.scrub(
            what + ": the target answered " + exchange.firstStatus() + ", then " + e.getMessage()
                + "; the answer was not kept, so the outcome is unknown"),
            ErrorTypes.OUTCOME_UNKNOWN);
      }
      if (wire.requestStarted) {
        throw ApplicationFailure.newNonRetryableFailure(templates.scrub(
            what + ": request may have reached the target, no response observed (" + e + ")"),
            ErrorTypes.OUTCOME_UNKNOWN);
      }
      throw ApplicationFailure.newFailure(templates.scrub(
          what + ": request not sent (" + e + ")"), ErrorTypes.NOT_SENT);
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
    HttpTemplates templates = new HttpTemplates(request.arguments(), request.executionId(), request.contract().fingerprintSecret());
    String method = status.method().toUpperCase(Locale.ROOT);
    HttpUrl url = newRequest(method, templates.url(status.url(), "status url"), status.url()).build().url();
    Credential credential = credential(spec, context);
    context.heartbeat("querying status");
    long start = System.nanoTime();
    StatusHop hop = statusHop(method, url, spec, templates, credential, status, start, 0);
    for (int redirects = 1; hop.next() != null; redirects++) {
      context.heartbeat("querying status (redirected)");
      hop = statusHop(method, hop.next(), spec, templates, credential, status, start, redirects);
    }
    DispatchResult result = hop.result();
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
            + status.completedWhen() + " nor not_executed_when " + status.notExecutedWhen()
            + (hop.notFollowed() == null ? "" : " (" + hop.notFollowed() + ")"));
  }

  /** One status request: its answer, or where a same-origin redirect leads; why a redirect was not followed. */
  private record StatusHop(DispatchResult result, HttpUrl next, String notFollowed) {}

  /**
   * Sends one status request. A redirect is followed (returned as {@code next}) only for GET and
   * HEAD, within the origin, up to {@link #MAX_STATUS_REDIRECTS}, and unless the contract lists its
   * status as an answer.
   */
  private StatusHop statusHop(String method, HttpUrl url, HttpSpec spec, HttpTemplates templates,
      Credential credential, StatusSpec status, long startNanos, int redirects) {
    Request.Builder builder = new Request.Builder().url(url);
    SecretRedactor redactor = applyHeaders(builder, spec, templates, credential);
    setMethod(builder, method, requiresBody(method) ? RequestBody.create("{}", JSON) : null);
    Request httpRequest = builder.build();
    WireListener wire = new WireListener();
    SingleExchange exchange = new SingleExchange(() -> {});
    OkHttpClient client = exchange.install(withTimeouts(strict.newBuilder(), spec.timeoutMillis()))
        .eventListener(wire)
        .build();
    try (Response response = client.newCall(httpRequest).execute()) {
      int code = response.code();
      String location = response.header("Location");
      String notFollowed = null;
      if (isRedirect(code) && location != null
          && !status.completedWhen().contains(code) && !status.notExecutedWhen().contains(code)) {
        HttpUrl target = url.resolve(location);
        if (!method.equals("GET") && !method.equals("HEAD")) {
          notFollowed = "a redirect is followed only for GET and HEAD";
        } else if (target == null || !sameOrigin(url, target)) {
          notFollowed = "a redirect to another origin is not followed";
        } else if (redirects >= MAX_STATUS_REDIRECTS) {
          notFollowed = "more than " + MAX_STATUS_REDIRECTS + " redirects are not followed";
        } else {
          return new StatusHop(null, target, null);
        }
      }
      return new StatusHop(toResult(response, spec.idempotencyHeader(), startNanos, redactor), null, notFollowed);
    } catch (IOException e) {
      // A status query is a read: any failure may simply be retried.
      String message = "status query " + method + " " + redacted(httpRequest.url()) + " failed ("
          + (exchange.refusedSecondRequest() ? e.getMessage() : e.toString()) + ")";
      throw ApplicationFailure.newFailure(
          templates.scrub(message), wire.requestStarted ? IOException.class.getName() : ErrorTypes.NOT_SENT);
    }
  }

  private static boolean isRedirect(int code) {
    return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
  }

  private static boolean sameOrigin(HttpUrl a, HttpUrl b) {
    return a.scheme().equals(b.scheme()) && a.host().equals(b.host()) && a.port() == b.port();
  }

  private static OkHttpClient.Builder withTimeouts(OkHttpClient.Builder builder, long timeoutMillis) {
    Duration timeout = Duration.ofMillis(timeoutMillis);
    return builder
        .callTimeout(timeout)
        .connectTimeout(timeout)
        .readTimeout(timeout)
        .writeTimeout(timeout);
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
}
