package io.onceport.activity.vault;

import java.util.Objects;

/** What may be shown about a stored credential: name, type and flags, never the secret. */
public record VaultEntry(String name, Credential.Type type, boolean approveEachUse) {
  public VaultEntry {
    Objects.requireNonNull(name, "name == null");
    Objects.requireNonNull(type, "type == null");
  }
}
