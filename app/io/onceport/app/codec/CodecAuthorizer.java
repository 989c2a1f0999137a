package io.onceport.app.codec;

/**
 * Decides whether a bearer token may use the codec server. The codec server decrypts payloads
 * (tool arguments, target responses), so it is as sensitive as the payloads themselves: never back
 * this with "allow all" outside a test.
 */
@FunctionalInterface
public interface CodecAuthorizer {
  /** True when {@code bearerToken} (the text after {@code Bearer }, never null or blank) may encode and decode. */
  boolean allowed(String bearerToken);
}
