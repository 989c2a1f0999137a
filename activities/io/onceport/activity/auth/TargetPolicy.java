package io.onceport.activity.auth;

import java.util.Optional;

/**
 * Rung 2 of the ladder for targets: may this tool act on this target (host allow-list, DNS
 * resolvability)? Returns the reason for a refusal, or empty to allow. The default allows every
 * target the contract produced.
 */
public interface TargetPolicy {
  Optional<String> refusal(String tool, String target);

  static TargetPolicy allowAll() {
    return (tool, target) -> Optional.empty();
  }
}
