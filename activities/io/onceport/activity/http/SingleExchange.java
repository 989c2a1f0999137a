package io.onceport.activity.http;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Response;

/**
 * Makes one OkHttp call exactly one network exchange: the request the workflow decided, once, and
 * its first answer as the result.
 *
 * <p>OkHttp's {@code RetryAndFollowUpInterceptor} sends follow-ups below anything the caller
 * controls: {@code 503} with {@code Retry-After: 0} is re-sent whatever {@code
 * retryOnConnectionFailure} says, {@code 401}/{@code 407} go to the authenticators, redirects are
 * followed, {@code 408} and {@code 421} may be repeated. Switching the features off is not enough
 * (the 503 rule has no switch, and a {@code 407} without a proxy even turns the target's answer into
 * a {@code ProtocolException}, an unknown outcome). So:
 *
 * <ol>
 *   <li>the {@linkplain #network() network interceptor} hands every answer with a status of 300 or
 *       more (except 304) up through the follow-up logic under a neutral status, which that logic
 *       never acts on, and the {@linkplain #application() application interceptor} restores the
 *       observed status — status, headers and body are the target's own;
 *   <li>the network interceptor also counts exchanges: a second one within the call — whoever
 *       asks for it, a future OkHttp rule or an interceptor on a shared client — is refused
 *       before a byte is written, with {@link SecondRequestRefused}, and the caller fails loudly.
 * </ol>
 *
 * <p>{@code beforeFirstSend} runs in the network interceptor, after the connection is established
 * and before the first request byte; if it throws, nothing is written and the failure is kept for
 * {@link #rethrowBeforeSendFailure()}, because OkHttp may wrap what an interceptor throws.
 *
 * <p>One instance per call; not reusable.
 */
final class SingleExchange {
  /** Stands in for a held-back status while it passes OkHttp's follow-up logic (which ignores 2xx). */
  private static final int NEUTRAL_STATUS = 299;

  /** Thrown, before anything is written, when a second exchange is attempted within one call. */
  static final class SecondRequestRefused extends IOException {
    SecondRequestRefused(String message) {
      super(message);
    }
  }

  private final Runnable beforeFirstSend;
  private volatile int exchanges;
  private volatile int heldStatus = -1;
  private volatile int firstStatus = -1;
  private volatile boolean refused;
  private volatile RuntimeException beforeSendFailure;

  /** @param beforeFirstSend runs once, right before the first request byte (may be a no-op) */
  SingleExchange(Runnable beforeFirstSend) {
    this.beforeFirstSend = beforeFirstSend;
  }

  /** {@code builder} with both interceptors added, innermost of the caller's. */
  OkHttpClient.Builder install(OkHttpClient.Builder builder) {
    return builder.addInterceptor(application()).addNetworkInterceptor(network());
  }

  Interceptor application() {
    return chain -> {
      Response response = chain.proceed(chain.request());
      int held = heldStatus;
      return held < 0 ? response : response.newBuilder().code(held).build();
    };
  }

  Interceptor network() {
    return chain -> {
      if (++exchanges > 1) {
        refused = true;
        throw new SecondRequestRefused("a second request within one dispatch was refused (the first was answered "
            + firstStatus + "); only the workflow may decide to send again");
      }
      try {
        beforeFirstSend.run();
      } catch (RuntimeException e) {
        beforeSendFailure = e;
        throw new IOException("beforeSend failed; nothing sent", e);
      }
      Response response = chain.proceed(chain.request());
      firstStatus = response.code();
      if (response.code() >= 300 && response.code() != 304) {
        heldStatus = response.code();
        return response.newBuilder().code(NEUTRAL_STATUS).build();
      }
      return response;
    };
  }

  /** Whether a second exchange was attempted (and refused). */
  boolean refusedSecondRequest() {
    return refused;
  }

  /** The first answer's status, or -1 if none arrived. */
  int firstStatus() {
    return firstStatus;
  }

  void rethrowBeforeSendFailure() {
    RuntimeException failure = beforeSendFailure;
    if (failure != null) {
      throw failure;
    }
  }
}
