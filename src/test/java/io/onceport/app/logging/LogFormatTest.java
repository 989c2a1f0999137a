package io.onceport.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

class LogFormatTest {
  private static final Logger log = LoggerFactory.getLogger("io.onceport.test.LogFormatTest");
  private final PrintStream originalErr = System.err;

  @AfterEach
  void restore() {
    System.setErr(originalErr);
    MDC.clear();
    LogFormat.use("text");
  }

  private String capture(Runnable logging) {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    try {
      logging.run();
    } finally {
      System.setErr(originalErr);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }

  @Test
  void jsonFormatWritesOneObjectPerLineWithExecutionIdFromMdc() throws Exception {
    LogFormat.use("json");

    String out = capture(() -> {
      MDC.put("execution_id", "act_01J9Z");
      log.info("dispatched {}", "create_release");
      MDC.remove("execution_id");
      log.warn("no execution here");
    });

    String[] lines = out.strip().split("\n");
    assertEquals(2, lines.length, out);
    JsonNode first = new ObjectMapper().readTree(lines[0]);
    assertEquals("INFO", first.get("level").asText());
    assertEquals("dispatched create_release", first.get("message").asText());
    assertEquals("act_01J9Z", first.get("execution_id").asText());
    assertEquals("io.onceport.test.LogFormatTest", first.get("logger").asText());
    assertFalse(new ObjectMapper().readTree(lines[1]).has("execution_id"));
  }

  @Test
  void textFormatAppendsExecutionIdOnlyWhenSet() {
    LogFormat.use("text");

    String out = capture(() -> {
      MDC.put("execution_id", "act_01J9Z");
      log.info("dispatched");
      MDC.remove("execution_id");
      log.info("idle");
    });

    String[] lines = out.strip().split("\n");
    assertEquals(2, lines.length, out);
    assertTrue(lines[0].endsWith("LogFormatTest execution_id=act_01J9Z - dispatched"), lines[0]);
    assertTrue(lines[1].endsWith("LogFormatTest - idle"), lines[1]);
  }

  /** Agent text (a clientInfo, a JSON-RPC id) with CR/LF and ANSI escapes: one event stays one line, nothing raw. */
  @Test
  void agentTextInTheTextLogIsEscapedOneEventOneLine() {
    LogFormat.use("text");
    String agent = "evil\r\n12:00:00.000 INFO  i.o.a.d.DispatchActivitiesImpl - dispatched act_x #2\u001b[2K\u202e";

    String out = capture(() -> {
      log.info("initialize from client {}", agent);
      log.warn("call failed", new IllegalStateException("upstream said: " + agent));
    });

    List<String> lines = out.lines().toList();
    assertTrue(lines.get(0).endsWith("LogFormatTest - initialize from client evil\\r\\n12:00:00.000 INFO  i.o.a.d."
        + "DispatchActivitiesImpl - dispatched act_x #2\\u001B[2K\\u202E"), out);
    assertTrue(lines.get(1).endsWith("LogFormatTest - call failed"), out);
    assertTrue(lines.get(2).startsWith("java.lang.IllegalStateException: upstream said: evil\\r\\n12:00"), out);
    assertTrue(lines.subList(3, lines.size()).stream().allMatch(l -> l.startsWith("\tat ") || l.startsWith("\t... ")), out);
    assertTrue(out.chars().noneMatch(c -> c == '\r' || c == 0x1b || c == 0x202e), out);
  }

  @Test
  void errorsCarryTheStackTraceInJson() throws Exception {
    LogFormat.use("json");

    String out = capture(() -> log.error("failed", new IllegalStateException("boom")));

    JsonNode line = new ObjectMapper().readTree(out.strip());
    assertTrue(line.get("error").asText().startsWith("java.lang.IllegalStateException: boom"), line.toString());
  }

  @Test
  void unknownFormatIsRejected() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> LogFormat.use("xml"));
    assertEquals("Invalid log format: xml (expected text or json)", e.getMessage());
  }
}
