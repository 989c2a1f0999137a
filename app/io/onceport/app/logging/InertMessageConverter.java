package io.onceport.app.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.onceport.shared.text.InertText;

/**
 * {@code %inertMsg} in the text log's pattern: the formatted message made inert ({@link InertText}).
 * Log messages quote what agents send (tool and client names, JSON-RPC ids, arguments in errors) and
 * what upstreams and targets answer; with a raw CR/LF such text wrote a line of its own into the
 * text log (a forged entry), with ESC sequences it acted on the terminal showing the log. One event
 * is one line. The JSON log needs no such step: its encoder escapes control characters.
 */
public final class InertMessageConverter extends ClassicConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return InertText.of(event.getFormattedMessage());
  }
}
