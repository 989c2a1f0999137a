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
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.contract.VerifySpec;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyEvaluator;
import io.onceport.workflow.verify.VerifyRequest;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import okhttp3.Authenticator;
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
 * unknown one; only the {@linkplain #forReads() read channel} pools, and it alone sends a GET or
 * HEAD once more when its pooled connection proved stale), has no authenticators and follows no redirects; and because OkHttp's follow-up
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
 * <p>Long because: its four exchanges (send, safe read, status query, verification check) share
 * one rule of what crossed the wire, one credential and header path and one redirect policy; split
 * apart, each would carry its own copy of the rule that decides whether a failure may be retried.
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
  /** The pool of a {@linkplain #forReads() read channel}; null for a dispatch channel, which keeps none. */
  private final ConnectionPool readPool;

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
    this.readPool = null;
  }

  /** A read channel: {@code strict} with {@code pool} as its connection pool. */
  private HttpChannel(OkHttpClient strict, ConnectionPool pool) {
    this.strict = strict.newBuilder().connectionPool(pool).build();
    this.readPool = Objects.requireNonNull(pool, "pool == null");
  }

  /**
   * A channel for {@code read_only} calls answered without an execution (the front end's read
   * path): the same requests, templates, credentials, redirect rules and single exchange as {@link
   * #dispatch}, but connections are kept in a pool (at most {@value #READ_POOL_IDLE} idle, each
   * for {@link #READ_POOL_KEEP_ALIVE}) and reused. Never use this channel for a side-effecting
   * tool, whose dispatches keep a fresh connection each.
   *
   * <p><b>A stale pooled connection.</b> Targets close idle keep-alive connections on their own
   * schedule (Jetty after 30 s, Node after 5 s), and OkHttp checks an idle connection before a GET
   * only for a closed socket, not for the target's FIN: the next GET on it fails with "unexpected
   * end of stream", though the target never read it (the bench saw 5 such failed reads whenever
   * its read subject resumed after a pause). So a request that is {@linkplain #safeToRepeat safe to
   * repeat} — GET or HEAD — and failed on a reused pooled connection before any response byte is
   * sent once more on a fresh connection, and the pool's idle connections (as old as the failed
   * one, or older) are evicted. Nothing else is repeated here: a POST read on a stale connection
   * fails as an unknown outcome like any send (the read path decides what a {@code read_only}
   * contract allows), and dispatches never reuse a connection at all. Status queries and
   * verification checks ({@link #queryStatus}, {@link #verify}) run in the worker on the dispatch
   * channel's fresh connections, so no stale one can meet them; a failed one is retried by its
   * activity.
   */
  public static HttpChannel forReads() {
    return new HttpChannel(new HttpChannel().strict, new ConnectionPool(READ_POOL_IDLE, READ_POOL_KEEP_ALIVE.toSeconds(),
        TimeUnit.SECONDS));
  }

  /** Idle connections a read channel keeps: the read path's concurrency on one target, give or take. */
  static final int READ_POOL_IDLE = 16;
  /** How long a read channel keeps an idle connection (targets may close it sooner: see {@link #forReads()}). */
  static final Duration READ_POOL_KEEP_ALIVE = Duration.ofMinutes(1);

  /**
   * True for the methods a read channel sends again after a stale pooled connection: GET and HEAD,
   * safe by HTTP's definition (RFC 9110 §9.2.1) whatever the contract says, and the request
   * provably got no answer. Never true on a dispatch channel, whose connections are never pooled.
   */
  static boolean safeToRepeat(String method) {
    return method.equals("GET") || method.equals("HEAD");
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

    context.heartbeat("connecting");
    long start = System.nanoTime();
    Attempt attempt = new Attempt(context::beforeSend);
    try (Response response = send(httpRequest, method, spec, attempt)) {
      context.heartbeat("reading response");
      return toResult(response, spec.idempotencyHeader(), start, redactor);
    } catch (IOException e) {
      SingleExchange exchange = attempt.exchange;
      WireListener wire = attempt.wire;
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

  /** One send's guard and listener; renewed when a read channel sends a safe request once more. */
  private static final class Attempt {
    private final Runnable beforeSend;
    SingleExchange exchange;
    WireListener wire;

    Attempt(Runnable beforeSend) {
      this.beforeSend = beforeSend;
      renew();
    }

    void renew() {
      exchange = new SingleExchange(beforeSend);
      wire = new WireListener();
    }
  }

  /**
   * Sends {@code request} once; on a read channel, a {@linkplain #safeToRepeat safe} request that
   * met a stale pooled connection is sent once more on a fresh connection ({@link #forReads()}).
   */
  private Response send(Request request, String method, HttpSpec spec, Attempt attempt) throws IOException {
    try {
      return exchange(request, spec, attempt, strict);
    } catch (IOException e) {
      attempt.exchange.rethrowBeforeSendFailure(); // its own failure, never a stale connection's
      if (!staleSafeRead(method, attempt, e)) {
        throw e;
      }
      readPool.evictAll(); // idle as long as the stale one, or longer: the target has likely closed them too
      attempt.renew();
      return exchange(request, spec, attempt, strict.newBuilder().connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS)).build());
    }
  }

  /** One exchange of {@code request} on {@code client}, with the call's timeouts, listener and single-exchange guard. */
  private static Response exchange(Request request, HttpSpec spec, Attempt attempt, OkHttpClient client) throws IOException {
    return attempt.exchange.install(withTimeouts(client.newBuilder(), spec.timeoutMillis())).eventListener(attempt.wire).build()
        .newCall(request).execute();
  }

  /**
   * True when a read channel's {@linkplain #safeToRepeat safe} request failed on a reused pooled
   * connection before any response byte and not by a timeout (a slow target is not a stale
   * connection): the target cannot have answered it, and repeating a GET or HEAD changes nothing.
   */
  private boolean staleSafeRead(String method, Attempt attempt, IOException e) {
    return readPool != null && safeToRepeat(method) && attempt.wire.reusedConnection() && !attempt.wire.responseStarted
        && !attempt.exchange.refusedSecondRequest() && !(e instanceof InterruptedIOException);
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
    IntPredicate answers = code -> status.completedWhen().contains(code) || status.notExecutedWhen().contains(code);
    StatusHop hop = follow("status query", method, url, spec, templates, credential, answers, context);
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

  /**
   * One verification check ({@code replay.verify}): a GET or HEAD of the check's URL with the tool's
   * credential, headers and templates, following same-origin redirects as a status query does, and
   * the verdict of {@link VerifyEvaluator} on its answer (after the credential's secret was removed).
   * Only the verdict, the status and what the pointers held come back. A failed request is a
   * retryable failure: the workflow takes it as "not yet known".
   */
  @Override
  public VerifyAnswer verify(VerifyRequest request, DispatchContext context) {
    ToolContract contract = request.contract();
    if (contract.channel() != ToolContract.Channel.HTTP || contract.http() == null) {
      throw HttpTemplates.invalid("Tool " + contract.tool() + " is not an http tool");
    }
    HttpSpec spec = contract.http();
    VerifySpec verify = contract.replay().verify();
    HttpTemplates templates = new HttpTemplates(request.arguments(), request.executionId(), contract.fingerprintSecret());
    String method = verify.method().toUpperCase(Locale.ROOT);
    HttpUrl url = newRequest(method, templates.url(verify.url(), "verify url"), verify.url()).build().url();
    Credential credential = credential(spec, context);
    context.heartbeat("verifying");
    IntPredicate answers = code -> verify.verifiedWhen().status().contains(code)
        || verify.notAppliedWhen() != null && verify.notAppliedWhen().status().contains(code);
    StatusHop hop = follow("verification", method, url, spec, templates, credential, answers, context);
    DispatchResult result = hop.result();
    VerifyAnswer answer = VerifyEvaluator.evaluate(verify, result.status(), VerifyEvaluator.parse(result.body()),
        request.verified(), request.notApplied());
    return hop.notFollowed() == null ? answer
        : new VerifyAnswer(answer.verdict(), answer.status(), answer.held(), answer.detail() + " (" + hop.notFollowed() + ")");
  }

  /** A status query's or verification's requests: the first, then each same-origin redirect {@link #statusHop} follows. */
  private StatusHop follow(String what, String method, HttpUrl url, HttpSpec spec, HttpTemplates templates,
      Credential credential, IntPredicate answers, DispatchContext context) {
    long start = System.nanoTime();
    StatusHop hop = statusHop(what, method, url, spec, templates, credential, answers, start, 0);
    for (int redirects = 1; hop.next() != null; redirects++) {
      context.heartbeat(what + " (redirected)");
      hop = statusHop(what, method, hop.next(), spec, templates, credential, answers, start, redirects);
    }
    return hop;
  }

  /** One status request: its answer, or where a same-origin redirect leads; why a redirect was not followed. */
  private record StatusHop(DispatchResult result, HttpUrl next, String notFollowed) {}

  /**
   * Sends one status (or verification) request. A redirect is followed (returned as {@code next})
   * only for GET and HEAD, within the origin, up to {@link #MAX_STATUS_REDIRECTS}, and unless the
   * contract lists its status as an answer ({@code answers}).
   */
  private StatusHop statusHop(String what, String method, HttpUrl url, HttpSpec spec, HttpTemplates templates,
      Credential credential, IntPredicate answers, long startNanos, int redirects) {
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
      if (isRedirect(code) && location != null && !answers.test(code)) {
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
      // A status query (or a verification) is a read: any failure may simply be retried.
      String message = what + " " + method + " " + redacted(httpRequest.url()) + " failed ("
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
}
