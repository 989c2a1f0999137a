package io.onceport.frontend.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The front end's two hooks for errors its libraries catch: Javalin's error handler (an Error in a
 * route) and Jetty's pool (an Error in a job). Each hands the error to the JVM's default
 * uncaught-exception handler — fatal in a process {@code Main} started; captured here.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FatalErrorsFrontEndTest {
  private final CompletableFuture<Throwable> reported = new CompletableFuture<>();
  private Thread.UncaughtExceptionHandler previous;

  @BeforeEach
  void capture() {
    previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> reported.complete(failure));
  }

  @AfterEach
  void restore() {
    Thread.setDefaultUncaughtExceptionHandler(previous);
  }

  @Test
  void anErrorInARouteReachesTheDefaultHandler() throws Exception {
    OutOfMemoryError error = new OutOfMemoryError("thrown by a route");
    McpConfig.Builder config = McpHarness.base().extraRoutes(routes -> routes.get("/boom", ctx -> {
      throw error;
    }));
    try (McpHarness h = new McpHarness(config)) {
      HttpResponse<String> r = h.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.server.port() + "/boom"))
          .GET().build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(500, r.statusCode());
      assertSame(error, reported.get(10, TimeUnit.SECONDS));
    }
  }

  @Test
  void anErrorInAJobOfThePoolReachesTheDefaultHandler() throws Exception {
    FatalErrorsPool pool = new FatalErrorsPool(4, 1, 60_000);
    pool.start();
    try {
      StackOverflowError error = new StackOverflowError("thrown by a job");
      pool.execute(() -> {
        throw error;
      });
      assertSame(error, reported.get(10, TimeUnit.SECONDS));
    } finally {
      pool.stop();
    }
  }
}
