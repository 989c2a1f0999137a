package io.onceport.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Debian's headless Chromium driven over the DevTools protocol, for pages that never finish loading
 * (the Temporal UI long-polls the history of a running workflow, so {@code --dump-dom} with a
 * virtual time budget waits forever): navigate, wait for text to appear, read it, screenshot. One
 * browser profile per instance, so a cookie set on one page is sent on the next. Hand-written over
 * the JDK's WebSocket client: Selenium would need a chromedriver matching the browser's version, and
 * this needs four protocol methods. Closing kills only the browser this started.
 */
public final class HeadlessChromium implements AutoCloseable {
  public static final Path BINARY = Path.of("/usr/bin/chromium");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

  private HeadlessChromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  /** Starts a browser with a fresh profile and connects to its page. */
  public static HeadlessChromium start() throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("onceport-chromium");
    Process process = new ProcessBuilder(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
        "--window-size=1400,1000", "--user-data-dir=" + profile, "about:blank")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      Path active = profile.resolve("DevToolsActivePort");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(active) || Files.readAllLines(active).isEmpty()) {
        if (System.nanoTime() > deadline || !process.isAlive()) {
          throw new IOException("chromium did not open its DevTools port within 30 s");
        }
        Thread.sleep(50);
      }
      int port = Integer.parseInt(Files.readAllLines(active).get(0).strip());
      HttpClient http = HttpClient.newHttpClient();
      JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
      String url = null;
      for (JsonNode t : targets) {
        if ("page".equals(t.path("type").asText())) {
          url = t.path("webSocketDebuggerUrl").asText();
        }
      }
      if (url == null) {
        throw new IOException("chromium has no page target: " + targets);
      }
      HeadlessChromium[] self = new HeadlessChromium[1];
      StringBuilder partial = new StringBuilder();
      WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(url), new WebSocket.Listener() {
        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
          partial.append(data);
          if (last) {
            String message = partial.toString();
            partial.setLength(0);
            self[0].received(message);
          }
          ws.request(1);
          return null;
        }
      }).get(10, TimeUnit.SECONDS);
      self[0] = new HeadlessChromium(process, profile, socket);
      self[0].call("Page.enable", JSON.createObjectNode());
      return self[0];
    } catch (IOException | InterruptedException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IOException("cannot connect to chromium's DevTools: " + e, e);
    }
  }

  private void received(String message) {
    try {
      JsonNode m = JSON.readTree(message);
      CompletableFuture<JsonNode> waiting = m.has("id") ? pending.remove(m.get("id").asInt()) : null;
      if (waiting != null) {
        waiting.complete(m);
      }
    } catch (IOException e) {
      // not a protocol message: ignore
    }
  }

  private JsonNode call(String method, ObjectNode params) throws IOException {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
    message.set("params", params);
    socket.sendText(message.toString(), true).join();
    try {
      JsonNode m = answer.get(30, TimeUnit.SECONDS);
      if (m.has("error")) {
        throw new IOException(method + ": " + m.get("error"));
      }
      return m.path("result");
    } catch (Exception e) {
      throw e instanceof IOException io ? io : new IOException(method + " did not answer: " + e, e);
    }
  }

  /** Opens {@code url} in the page (returns once the navigation is committed, not loaded). */
  public void open(String url) throws IOException {
    JsonNode r = call("Page.navigate", JSON.createObjectNode().put("url", url));
    if (r.hasNonNull("errorText")) {
      throw new IOException("navigation to " + url + " failed: " + r.get("errorText").asText());
    }
  }

  /**
   * The page's visible text ({@code document.body.innerText}), then that of each same-origin frame.
   * The frames count: the Temporal UI renders markdown — an execution's summary and current details
   * on its "User Metadata" tab — in iframes of its own origin ({@code /render?content=…}), which the
   * page's own {@code innerText} leaves out.
   */
  public String text() throws IOException {
    String script = "(() => { const parts = [document.body ? document.body.innerText : '']; for (const f of document.querySelectorAll('iframe')) {"
        + " try { const b = f.contentDocument && f.contentDocument.body; if (b) { parts.push(b.innerText); } } catch (e) { /* another origin */ } }"
        + " return parts.join('\\n'); })()";
    JsonNode r = call("Runtime.evaluate", JSON.createObjectNode().put("expression", script).put("returnByValue", true));
    return r.path("result").path("value").asText("");
  }

  /** Polls the page's text until {@code condition} holds; returns it, or fails with the last text. */
  public String awaitText(Predicate<String> condition, Duration timeout, String what) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String text = "";
    while (System.nanoTime() < deadline) {
      text = text();
      if (condition.test(text)) {
        return text;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("the page did not show " + what + " within " + timeout + "; it shows:\n" + text);
  }

  /** Clicks the first element whose visible text is exactly {@code label}; false when there is none. */
  public boolean click(String label) throws IOException {
    String script = "(() => { const want = " + JSON.valueToTree(label) + "; const all = Array.from(document.querySelectorAll("
        + "'button, a, [role=tab], summary')); const e = all.find(x => x.innerText && x.innerText.trim() === want); "
        + "if (e) { e.click(); return true; } return false; })()";
    return call("Runtime.evaluate", JSON.createObjectNode().put("expression", script).put("returnByValue", true))
        .path("result").path("value").asBoolean(false);
  }

  /** Saves a PNG screenshot of the page to {@code file}. */
  public void screenshot(Path file) throws IOException {
    JsonNode r = call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png").put("captureBeyondViewport", true));
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, Base64.getDecoder().decode(r.path("data").asText()));
  }

  @Override
  public void close() throws IOException {
    socket.abort();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try (var files = Files.walk(profile)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a profile file still held: left in the temp directory
    }
  }

  /** Skips the calling test where Chromium is not installed, fails where CI promised it. */
  public static void requireInstalled() {
    if (!Files.isExecutable(BINARY) && System.getenv("CI") != null) {
      fail("CI is set but " + BINARY + " is missing (.ci/run installs Debian's chromium)");
    }
    assumeTrue(Files.isExecutable(BINARY), "headless Chromium is not installed (apt-get install chromium)");
  }
}
