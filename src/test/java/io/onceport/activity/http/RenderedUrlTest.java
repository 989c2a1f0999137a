package io.onceport.activity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.Fingerprinter;
import io.onceport.frontend.fingerprint.InvalidArgumentsException;
import io.onceport.workflow.ErrorTypes;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.temporal.failure.ApplicationFailure;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The canonical record's {@code target} is the URL that is actually sent (issue 11): the front
 * end's fingerprinting and the HTTP channel render URL templates with the same code, and a value
 * that an HTTP client would resolve as a path step ({@code .}, {@code ..}) is refused as invalid
 * arguments before anything starts — the channel refuses it too, so nothing is ever sent to
 * {@code /echo/} for {@code /echo/items/..}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RenderedUrlTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCHEMA = "{\"type\":\"object\",\"required\":[\"name\"],\"properties\":{"
      + "\"name\":{\"type\":\"string\"},\"suffix\":{\"type\":\"string\"},\"q\":{\"type\":\"string\"},"
      + "\"token\":{\"type\":\"string\"}}}";

  private final MockWebServer server = new MockWebServer();
  private final HttpChannel channel = new HttpChannel();
  private final HttpChannelTest.RecordingContext context = new HttpChannelTest.RecordingContext();
  private final ArgumentValidator validator = new ArgumentValidator();
  private final Fingerprinter fingerprinter = new Fingerprinter(FingerprintKey.of(new byte[32]));

  @BeforeEach
  void start() throws Exception {
    server.start(InetAddress.getByName("127.0.0.1"), 0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @ParameterizedTest(name = "name = {0}")
  @ValueSource(strings = {"catalog", "a/b c", "...", "a..", "..a", ".hidden", "%2e%2e", "%2E", "x\\y", "a?b#c",
      "ünï©ødé", "\uD83D\uDE00", "~user", "", "+1"})
  void theFingerprintTargetIsThePathTheTargetReceived(String name) throws Exception {
    server.enqueue(new MockResponse.Builder().code(201).build());
    ToolContract contract = contract("/echo/items/{{name}}?q={{q}}");
    ObjectNode args = JSON.createObjectNode().put("name", name).put("q", "..");

    String target = fingerprinter.canonicalRecord(contract, "agent:a", validator.validate(contract, args), null)
        .tree().path("target").asText();
    channel.dispatch(request(contract, args), context);

    RecordedRequest received = server.takeRequest();
    String path = received.getTarget().substring(0, received.getTarget().indexOf('?'));
    assertEquals("http://127.0.0.1:" + server.getPort() + path, target);
    assertEquals("q=..", received.getTarget().substring(received.getTarget().indexOf('?') + 1), "a query value stays as sent");
  }

  @ParameterizedTest(name = "name = {0}")
  @ValueSource(strings = {"..", "."})
  void aDotSegmentValueIsInvalidArgumentsAtTheFrontEndAndNeverSent(String name) {
    ToolContract contract = contract("/echo/items/{{name}}");
    ObjectNode args = JSON.createObjectNode().put("name", name);

    InvalidArgumentsException invalid = assertThrows(InvalidArgumentsException.class, () -> validator.validate(contract, args));
    ApplicationFailure refused = assertThrows(ApplicationFailure.class, () -> channel.dispatch(request(contract, args), context));

    assertEquals(List.of("name: makes the path segment '" + name + "', which HTTP clients resolve as a step in the path "
        + "instead of sending it; a value that fills a path segment may not be '.' or '..' (http.url)"), invalid.errors());
    assertEquals(ErrorTypes.INVALID_REQUEST, refused.getType());
    assertEquals("Placeholder {{name}} in url makes the path segment '" + name + "', which HTTP clients resolve as a step "
        + "in the path instead of sending it; a value that fills a path segment may not be '.' or '..'", refused.getOriginalMessage());
    assertEquals(0, server.getRequestCount());
    assertEquals(0, context.beforeSendCalls);
  }

  @Test
  void twoPlaceholdersThatTogetherMakeDotDotAreRefusedNamingTheFirst() {
    ToolContract contract = contract("/echo/{{name}}{{suffix}}/x");
    ObjectNode args = JSON.createObjectNode().put("name", ".").put("suffix", ".");

    InvalidArgumentsException invalid = assertThrows(InvalidArgumentsException.class, () -> validator.validate(contract, args));

    assertEquals(1, invalid.errors().size());
    assertEquals("name: makes the path segment '..'", invalid.errors().get(0).substring(0, "name: makes the path segment '..'".length()));
  }

  @Test
  void aSecretArgumentIsCheckedButStaysAPlaceholderInTheTarget() throws Exception {
    ToolContract contract = contract("/echo/{{token}}/{{name}}", List.of("token"));

    String target = fingerprinter.canonicalRecord(contract, "agent:a",
        validator.validate(contract, JSON.createObjectNode().put("name", "n").put("token", "t0k")), null).tree().path("target").asText();
    InvalidArgumentsException invalid = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(contract, JSON.createObjectNode().put("name", "n").put("token", "..")));

    assertEquals("http://127.0.0.1:" + server.getPort() + "/echo/{{token}}/n", target);
    assertEquals("token: makes the path segment '..'", invalid.errors().get(0).substring(0, "token: makes the path segment '..'".length()));
  }

  @Test
  void aMissingOrStructuredUrlValueIsInvalidArgumentsAtTheFrontEnd() {
    ToolContract contract = contract("/echo/{{name}}/{{suffix}}");

    InvalidArgumentsException missing = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(contract, JSON.createObjectNode().put("name", "n")));

    assertEquals(List.of("suffix: has no argument value (http.url)"), missing.errors());
  }

  @Test
  void aDotSegmentInTheStatusUrlIsRefusedAtTheFrontEndToo() {
    StatusSpec status = new StatusSpec("GET", "http://127.0.0.1:" + server.getPort() + "/status/{{name}}/{{execution_id}}",
        List.of(200), List.of(404));
    ToolContract contract = new ToolContract("echo", "", SCHEMA, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://127.0.0.1:" + server.getPort() + "/echo", null, Map.of(), "Idempotency-Key", null, 5000),
        null, new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofHours(1), status), List.of(), List.of());

    InvalidArgumentsException invalid = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(contract, JSON.createObjectNode().put("name", "..")));

    assertEquals(1, invalid.errors().size());
    assertEquals("name: makes the path segment '..'", invalid.errors().get(0).substring(0, "name: makes the path segment '..'".length()));
    assertEquals(true, invalid.errors().get(0).endsWith("(replay.status.url)"), invalid.errors().get(0));
  }

  private ToolContract contract(String path) {
    return contract(path, List.of());
  }

  private ToolContract contract(String path, List<String> secret) {
    HttpSpec http = new HttpSpec("POST", "http://127.0.0.1:" + server.getPort() + path, null, Map.of(), "Idempotency-Key", null, 5000);
    return new ToolContract("echo", "", SCHEMA, null, ToolContract.Channel.HTTP, http, null,
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), List.of(), secret);
  }

  private static DispatchRequest request(ToolContract contract, ObjectNode args) {
    return new DispatchRequest("act_01JTESTEXECUTION", "hmac-sha256:00", contract, args.toString(), 1);
  }
}
