package io.onceport.frontend.mcp;

import java.util.Objects;

/**
 * An MCP session (revisions 2025-03-26 to 2025-11-25) as carried inside its signed id.
 *
 * @param nonce random id, the key for revocation
 * @param generation the generation of the credential that opened it (null when that had none)
 * @param client the client named in {@code initialize} ({@link ClientInfo#NONE} when none was)
 * @param issuedAt epoch seconds
 */
record Session(String id, String nonce, String actor, String generation, String protocolVersion, ClientInfo client, long issuedAt) {
  Session {
    Objects.requireNonNull(nonce, "nonce == null");
    Objects.requireNonNull(actor, "actor == null");
    Objects.requireNonNull(protocolVersion, "protocolVersion == null");
    client = client == null ? ClientInfo.NONE : client;
  }

  /** {@code name/version} of the client, or null. */
  String clientInfo() {
    return client.display();
  }
}
