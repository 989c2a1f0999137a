package io.onceport.testing;

import io.onceport.app.Main;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code onceport} as {@link Main} runs it, plus one thread that throws an {@link OutOfMemoryError}
 * once the file named by {@code -Donceport.test.trigger} exists (the test creates it when the
 * process is up): an error in an ordinary thread of a {@code serve} or {@code worker} process.
 */
public final class ErrorOnTrigger {
  private ErrorOnTrigger() {}

  public static void main(String[] args) {
    Path trigger = Path.of(System.getProperty("onceport.test.trigger"));
    Thread thrower = new Thread(() -> {
      while (!Files.exists(trigger)) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
      throw new OutOfMemoryError("thrown by the test once " + trigger + " existed");
    }, "test-error-thread");
    thrower.setDaemon(true);
    thrower.start();
    Main.main(args);
  }
}
