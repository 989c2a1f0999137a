package io.onceport.app.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import io.onceport.shared.text.InertText;

/**
 * {@code %inertEx} in the text log's pattern: the stack trace as logback writes it, with every
 * exception's message made inert ({@link InertText}). An exception's message may quote agent or
 * target text (an upstream's error, a malformed request); raw, its line breaks would add lines that
 * look like frames or like other log entries. The frames themselves come from the JVM.
 */
public final class InertThrowableConverter extends ThrowableProxyConverter {
  @Override
  protected String throwableProxyToString(IThrowableProxy tp) {
    return super.throwableProxyToString(tp == null ? null : new Inert(tp));
  }

  /** A throwable proxy whose messages (its own, its causes', its suppressed ones') are inert. */
  private record Inert(IThrowableProxy proxy) implements IThrowableProxy {
    @Override
    public String getMessage() {
      return proxy.getMessage() == null ? null : InertText.of(proxy.getMessage());
    }

    @Override
    public String getClassName() {
      return proxy.getClassName();
    }

    @Override
    public StackTraceElementProxy[] getStackTraceElementProxyArray() {
      return proxy.getStackTraceElementProxyArray();
    }

    @Override
    public int getCommonFrames() {
      return proxy.getCommonFrames();
    }

    @Override
    public IThrowableProxy getCause() {
      return proxy.getCause() == null ? null : new Inert(proxy.getCause());
    }

    @Override
    public IThrowableProxy[] getSuppressed() {
      IThrowableProxy[] suppressed = proxy.getSuppressed();
      if (suppressed == null) {
        return null;
      }
      IThrowableProxy[] out = new IThrowableProxy[suppressed.length];
      for (int i = 0; i < suppressed.length; i++) {
        out[i] = new Inert(suppressed[i]);
      }
      return out;
    }

    @Override
    public boolean isCyclic() {
      return proxy.isCyclic();
    }
  }
}
