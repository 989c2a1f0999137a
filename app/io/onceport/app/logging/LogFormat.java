package io.onceport.app.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import org.slf4j.LoggerFactory;

/** Switches the log format at run time, for {@code --log-format text|json} (logback starts before picocli parses). */
public final class LogFormat {
  public static final String PROPERTY = "onceport.log.format";

  private LogFormat() {}

  /** Reconfigures logback from {@code logback.xml} with {@code format} ({@code text} or {@code json}). */
  public static void use(String format) {
    if (!format.equals("text") && !format.equals("json")) {
      throw new IllegalArgumentException("Invalid log format: " + format + " (expected text or json)");
    }
    System.setProperty(PROPERTY, format);
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return; // another SLF4J binding (tests with a different backend): nothing to switch
    }
    URL config = LogFormat.class.getResource("/logback.xml");
    if (config == null) {
      throw new IllegalStateException("logback.xml is missing from the classpath");
    }
    context.reset();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    try {
      configurator.doConfigure(config);
    } catch (JoranException e) {
      throw new IllegalStateException("cannot configure logging: " + e.getMessage(), e);
    }
  }
}
