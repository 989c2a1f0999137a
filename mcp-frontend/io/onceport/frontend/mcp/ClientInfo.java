package io.onceport.frontend.mcp;

/**
 * The client an agent names ({@code clientInfo} of {@code initialize}, or {@code _meta} in
 * 2026-07-28): evidence, and a part of the session id of a call without a session or run. Name and
 * version stay apart, so a name holding {@code /} cannot pass for another name and version.
 *
 * @param name the client's name, or null when it sent none
 * @param version its version, or null
 */
record ClientInfo(String name, String version) {
  static final ClientInfo NONE = new ClientInfo(null, null);

  ClientInfo {
    if (name == null) {
      version = null;
    }
  }

  /** {@code name/version} ({@code name} alone without a version) for records and logs; null without a name. */
  String display() {
    return name == null ? null : version == null || version.isEmpty() ? name : name + "/" + version;
  }
}
