package io.onceport.activity.http;

import io.onceport.workflow.dispatch.DispatchResult;
import java.io.IOException;
import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * A target's answer as the {@link HttpChannel}'s result: the selected headers, the body decoded
 * with the response charset and capped at {@link DispatchResult#BODY_CAP} characters, the
 * credential's secret redacted from both (a secret crossing the cap is redacted whole).
 */
final class HttpAnswers {
  private HttpAnswers() {}

  static DispatchResult toResult(
      Response response, String idempotencyHeader, long startNanos, SecretRedactor redactor) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : HttpChannel.SELECTED_HEADERS) {
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
    // Read past the cap by the longest secret form, so that a secret crossing the cap is redacted whole.
    int limit = DispatchResult.BODY_CAP + redactor.lookahead();
    StringBuilder body = new StringBuilder();
    boolean cut = false;
    ResponseBody responseBody = response.body();
    try (Reader reader = responseBody.charStream()) {
      char[] buffer = new char[8192];
      int n;
      while ((n = reader.read(buffer)) != -1) {
        body.append(buffer, 0, n);
        if (body.length() > limit) {
          body.setLength(limit);
          cut = true;
          break;
        }
      }
    } catch (IOException e) {
      // The status line arrived, so the target answered; keep what was read and say it is partial.
      cut = true;
    }
    String text = cut ? redactor.redactCut(body.toString()) : redactor.redact(body.toString());
    boolean truncated = cut;
    if (text.length() > DispatchResult.BODY_CAP) {
      text = text.substring(0, DispatchResult.BODY_CAP);
      truncated = true;
    }
    Map<String, String> shown = redactor.redact(headers);
    long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    return DispatchResult.http(response.code(), shown, text, truncated, elapsed)
        .withRedacted(redactor.redactedReferences());
  }
}
