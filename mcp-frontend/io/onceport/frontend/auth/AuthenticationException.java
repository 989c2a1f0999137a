package io.onceport.frontend.auth;

import java.util.Objects;

/**
 * A bearer token that is not accepted. The message is the RFC 6750 {@code error_description} the
 * client sees in {@code WWW-Authenticate}; it names what was wrong (expired, wrong audience,
 * untrusted issuer…) and never contains the token or any part of it.
 */
public final class AuthenticationException extends RuntimeException {
  /** RFC 6750 error code of a token that is expired, revoked, malformed or not for this resource. */
  public static final String INVALID_TOKEN = "invalid_token";

  private final String error;

  public AuthenticationException(String error, String description) {
    super(Objects.requireNonNull(description, "description == null"), null, false, false);
    this.error = Objects.requireNonNull(error, "error == null");
  }

  /** Not an RFC 6750 code: the token could not be checked because the IdP is unreachable (HTTP 503). */
  public static final String UNAVAILABLE = "temporarily_unavailable";

  /** An {@code invalid_token} refusal. */
  public static AuthenticationException invalidToken(String description) {
    return new AuthenticationException(INVALID_TOKEN, description);
  }

  /** The token could not be checked now (the issuer's metadata, keys or introspection unreachable): HTTP 503. */
  public static AuthenticationException unavailable(String description) {
    return new AuthenticationException(UNAVAILABLE, description);
  }

  /** The RFC 6750 error code. */
  public String error() {
    return error;
  }
}
