package io.onceport.activity.archfixture;

import io.onceport.frontend.gateway.ToolCall;

/**
 * Deliberately wrong: activity code depending on the MCP front end's call type. Read only by
 * ArchitectureTest to show the activities rule fails on it. Never called.
 */
public final class ActivityReachingIntoFrontEnd {
  private ActivityReachingIntoFrontEnd() {}

  static Object call() {
    return ToolCall.class;
  }
}
