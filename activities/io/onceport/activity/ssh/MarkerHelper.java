package io.onceport.activity.ssh;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The remote marker helper script ({@code onceport-run}) shipped on the classpath. */
public final class MarkerHelper {
  public static final String RESOURCE = "/io/onceport/activity/ssh/onceport-run";

  private MarkerHelper() {}

  /** The helper's full text, as installed on hosts. */
  public static String script() {
    try (InputStream in = MarkerHelper.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + RESOURCE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
