package io.onceport.activity.http;

import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.vault.Credential;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * The request an {@link HttpChannel} sends, built from the contract's {@code http} section: URL,
 * method and body rendered by {@link HttpTemplates}, the contract's headers, and the credential
 * resolved at send time as the header its type names. Every invalid piece fails as {@code
 * HttpTemplates.invalid} before anything is sent, and no message quotes a secret.
 */
final class HttpRequests {
  static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

  private HttpRequests() {}

  /** Methods whose request must carry a body (OkHttp refuses them without one). */
  static boolean requiresBody(String method) {
    return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
  }

  static HttpSpec httpSpec(DispatchRequest request) {
    ToolContract contract = request.contract();
    if (contract.channel() != ToolContract.Channel.HTTP || contract.http() == null) {
      throw HttpTemplates.invalid("Tool " + contract.tool() + " is not an http tool");
    }
    return contract.http();
  }

  /**
   * @param url the rendered URL, which may hold argument values (secret ones too): never quoted
   * @param template the contract's template, quoted instead
   */
  static Request.Builder newRequest(String method, String url, String template) {
    HttpUrl parsed = HttpUrl.parse(url);
    if (parsed == null) {
      throw HttpTemplates.invalid("Invalid " + method + " URL after rendering the template " + template
          + ": the arguments make no http(s) URL with a host");
    }
    return new Request.Builder().url(parsed);
  }

  static RequestBody bodyFor(String method, HttpSpec spec, HttpTemplates templates) {
    if (spec.body() == null && !requiresBody(method)) {
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

  static void setMethod(Request.Builder builder, String method, RequestBody body) {
    try {
      builder.method(method, body);
    } catch (IllegalArgumentException e) {
      throw HttpTemplates.invalid("Invalid request: " + e.getMessage());
    }
  }

  /** The contract's credential, resolved from the vault at send time, or null. */
  static Credential credential(HttpSpec spec, DispatchContext context) {
    return spec.credential() == null ? null : context.credential(spec.credential());
  }

  /** Sets the contract's headers and credential; returns what redacts that credential's secret from answers. */
  static SecretRedactor applyHeaders(
      Request.Builder builder, HttpSpec spec, HttpTemplates templates, Credential credential) {
    spec.headers().forEach((name, value) -> setHeader(builder, name, templates.text(value, "header " + name), value));
    if (credential == null) {
      return SecretRedactor.none();
    }
    applyCredential(builder, spec.credential(), credential);
    return SecretRedactor.of(spec.credential(), credential);
  }

  /**
   * Sets a header. OkHttp's refusal quotes the value ("Unexpected char 0xe9 at 4 in X-Pin value:
   * …"), and the value may be rendered from a {@code fingerprint.secret} argument or be the
   * execution's idempotency header: the message names the header and its template, never the value.
   *
   * @param template what the value was rendered from (the contract's text), for the message
   */
  static void setHeader(Request.Builder builder, String name, String value, String template) {
    try {
      builder.header(name, value);
    } catch (IllegalArgumentException e) {
      throw HttpTemplates.invalid("Invalid header " + name + " (template " + template + "): the name or the rendered value has "
          + "a character a header cannot carry (a line break, another control character or a non-ASCII character); "
          + "the value is not shown");
    }
  }

  static void applyCredential(Request.Builder builder, String reference, Credential credential) {
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
}
