package io.onceport.frontend.mcp;

import java.util.concurrent.ConcurrentHashMap;

/** Ended sessions of this process, forgotten once their token would have expired anyway. */
public final class InMemorySessionRevocations implements SessionRevocations {
  private final ConcurrentHashMap<String, Long> revoked = new ConcurrentHashMap<>();

  @Override
  public void revoke(String sessionNonce, long expiresAtEpochSecond) {
    long now = System.currentTimeMillis() / 1000;
    revoked.values().removeIf(exp -> exp < now);
    revoked.put(sessionNonce, expiresAtEpochSecond);
  }

  @Override
  public boolean isRevoked(String sessionNonce) {
    return revoked.containsKey(sessionNonce);
  }
}
