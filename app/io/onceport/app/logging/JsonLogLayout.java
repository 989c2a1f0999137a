package io.onceport.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Map;

/**
 * One flat JSON object per log line: {@code ts}, {@code level}, {@code logger}, {@code thread},
 * {@code message}, every MDC entry as a top-level field ({@code execution_id} among them), and
 * {@code error} with the stack trace when there is one.
 */
public final class JsonLogLayout extends LayoutBase<ILoggingEvent> {
  private static final JsonFactory JSON = new JsonFactory();

  @Override
  public String doLayout(ILoggingEvent event) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("ts", Instant.ofEpochMilli(event.getTimeStamp()).toString());
      g.writeStringField("level", event.getLevel().toString());
      g.writeStringField("logger", event.getLoggerName());
      g.writeStringField("thread", event.getThreadName());
      g.writeStringField("message", event.getFormattedMessage());
      Map<String, String> mdc = event.getMDCPropertyMap();
      if (mdc != null) {
        for (Map.Entry<String, String> e : mdc.entrySet()) {
          if (!isReserved(e.getKey())) {
            g.writeStringField(e.getKey(), e.getValue());
          }
        }
      }
      if (event.getThrowableProxy() != null) {
        g.writeStringField("error", ThrowableProxyUtil.asString(event.getThrowableProxy()));
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new IllegalStateException("cannot render a log line as JSON", e);
    }
    return out.append('\n').toString();
  }

  private static boolean isReserved(String key) {
    return switch (key) {
      case "ts", "level", "logger", "thread", "message", "error" -> true;
      default -> false;
    };
  }
}
