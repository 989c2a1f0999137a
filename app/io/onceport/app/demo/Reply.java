package io.onceport.app.demo;

import io.onceport.app.demo.DemoTarget.Handling;

/** One answer of the {@link DemoTarget}: status, JSON body, headers to set, and what the target did. */
record Reply(int status, String body, String location, boolean replayed, Handling handling, Integer retryAfter) {
  Reply(int status, String body, String location, boolean replayed, Handling handling) {
    this(status, body, location, replayed, handling, null);
  }
}
