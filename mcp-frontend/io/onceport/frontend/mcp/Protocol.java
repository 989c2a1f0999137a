package io.onceport.frontend.mcp;

import java.util.List;

/** The protocol revisions this endpoint speaks and how to tell them apart. */
final class Protocol {
  static final String V2025_03_26 = "2025-03-26";
  static final String V2025_06_18 = "2025-06-18";
  static final String V2025_11_25 = "2025-11-25";
  static final String V2026_07_28 = "2026-07-28";
  /** Session-based revisions negotiated with {@code initialize}, oldest first. */
  static final List<String> LEGACY = List.of(V2025_03_26, V2025_06_18, V2025_11_25);
  /** Per-request-metadata revisions. */
  static final List<String> MODERN = List.of(V2026_07_28);
  static final List<String> ALL = List.of(V2026_07_28, V2025_11_25, V2025_06_18, V2025_03_26);
  static final String LATEST_LEGACY = V2025_11_25;

  static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
  static final String META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  static final String META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  static final String META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
  static final String META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
  static final String META_RELATED_TASK = "io.modelcontextprotocol/related-task";
  static final String TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

  private Protocol() {}

  /** Batches exist only in 2025-03-26; later revisions take one message per POST. */
  static boolean allowsBatch(String version) {
    return V2025_03_26.equals(version);
  }

  static boolean hasTasks(String version) {
    return V2025_11_25.equals(version);
  }

  /** A version string that sorts at or after the first modern revision (date-named). */
  static boolean looksModern(String version) {
    return version != null && version.compareTo(V2026_07_28) >= 0 && version.matches("\\d{4}-\\d{2}-\\d{2}");
  }
}
