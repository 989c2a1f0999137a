package io.onceport.activity.dispatch;

import io.onceport.activity.vault.Credential;
import io.onceport.shared.trace.Tracing;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.dispatch.StatusResult;
import io.onceport.workflow.verify.VerifyAnswer;
import io.onceport.workflow.verify.VerifyRequest;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * A channel with a span for each send — channel, tool, execution, attempt, target host, and what
 * came back — as a child of the activity's span, current while the channel sends so that an HTTP
 * send carries its {@code traceparent} ({@link DispatchContext#traceparent()}). Wrapped around the
 * channels only when tracing is on: a worker without an exporter runs the channels bare.
 */
public final class TracedChannel implements DispatchChannel {
  static final AttributeKey<String> CHANNEL = AttributeKey.stringKey("onceport.channel");
  static final AttributeKey<String> TOOL = AttributeKey.stringKey("onceport.tool");
  static final AttributeKey<String> EXECUTION = AttributeKey.stringKey("onceport.execution_id");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("onceport.attempt");
  static final AttributeKey<String> HOST = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("onceport.target.status");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("onceport.outcome");

  private final DispatchChannel channel;
  private final Tracing tracing;

  private TracedChannel(DispatchChannel channel, Tracing tracing) {
    this.channel = Objects.requireNonNull(channel, "channel == null");
    this.tracing = Objects.requireNonNull(tracing, "tracing == null");
  }

  /** {@code channel} traced with {@code tracing}, or {@code channel} itself when tracing is off. */
  public static DispatchChannel of(DispatchChannel channel, Tracing tracing) {
    return tracing.enabled() ? new TracedChannel(channel, tracing) : channel;
  }

  @Override
  public DispatchResult dispatch(DispatchRequest request, DispatchContext context) {
    Span span = start("onceport.send", request);
    try (Scope ignored = span.makeCurrent()) {
      DispatchResult result = channel.dispatch(request, withTraceparent(context));
      if (result.status() != null) {
        span.setAttribute(STATUS, (long) result.status());
      }
      span.setAttribute(OUTCOME, result.succeeded() ? "completed" : "failed");
      return result;
    } catch (RuntimeException | Error e) {
      span.setAttribute(OUTCOME, "not answered");
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  @Override
  public StatusResult queryStatus(DispatchRequest request, DispatchContext context) {
    Span span = start("onceport.status_query", request);
    try (Scope ignored = span.makeCurrent()) {
      return channel.queryStatus(request, withTraceparent(context));
    } catch (RuntimeException | Error e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  @Override
  public VerifyAnswer verify(VerifyRequest request, DispatchContext context) {
    Span span = tracing.tracer().spanBuilder("onceport.verify").setSpanKind(SpanKind.CLIENT)
        .setAttribute(CHANNEL, request.contract().channel().name().toLowerCase(Locale.ROOT))
        .setAttribute(TOOL, request.contract().tool())
        .setAttribute(EXECUTION, request.executionId())
        .setAttribute(HOST, host(request.contract()))
        .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return channel.verify(request, withTraceparent(context));
    } catch (RuntimeException | Error e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }

  private Span start(String name, DispatchRequest request) {
    ToolContract contract = request.contract();
    return tracing.tracer().spanBuilder(name).setSpanKind(SpanKind.CLIENT)
        .setAttribute(CHANNEL, contract.channel().name().toLowerCase(Locale.ROOT))
        .setAttribute(TOOL, contract.tool())
        .setAttribute(EXECUTION, request.executionId())
        .setAttribute(ATTEMPT, (long) request.attempt())
        .setAttribute(HOST, host(contract))
        .startSpan();
  }

  /** The context with {@code traceparent} naming the span current where the channel asks (its sending thread). */
  private DispatchContext withTraceparent(DispatchContext context) {
    return new DispatchContext() {
      @Override
      public void beforeSend() {
        context.beforeSend();
      }

      @Override
      public void heartbeat(String phase) {
        context.heartbeat(phase);
      }

      @Override
      public Credential credential(String reference) {
        return context.credential(reference);
      }

      @Override
      public String traceparent() {
        return tracing.traceparent();
      }
    };
  }

  /** The target's host as the contract names it (an HTTP URL's host, an SSH host); never a credential. */
  static String host(ToolContract contract) {
    try {
      if (contract.http() != null) {
        URI uri = URI.create(contract.http().url().replaceAll("\\{[^}]*}", "x").replace(" ", "%20"));
        return uri.getHost() == null ? "" : uri.getHost();
      }
      if (contract.ssh() != null && contract.ssh().host() != null) {
        return contract.ssh().host();
      }
    } catch (IllegalArgumentException e) {
      return "";
    }
    return "";
  }
}
