package io.onceport.testing;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.temporal.api.workflowservice.v1.ExecuteMultiOperationRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Engine hiccups on a front end's connection to Temporal, for the RPCs that attach a call to an
 * execution: update-with-start ({@code ExecuteMultiOperation}) and an {@code attach} update by run
 * id ({@code UpdateWorkflowExecution} named {@code attach}). The n-th such RPC (1-based, counted
 * over both) can be delayed before it is sent, turned away without reaching the server, or let
 * through and its answer held and then replaced by a failure — the request took effect on the
 * server, the front end never learns how.
 */
public final class AttachFaults implements ClientInterceptor {
  /** Attach RPCs seen so far. */
  public final AtomicInteger attaches = new AtomicInteger();
  /** Update-with-start RPCs seen so far. */
  public final AtomicInteger starts = new AtomicInteger();
  private final List<Rule> rules = new CopyOnWriteArrayList<>();

  private record Rule(int nth, long delayMillis, long holdMillis, Status afterServer, Status reject) {}

  /** Sends the n-th attach RPC only after {@code delay}. */
  public AttachFaults delayBefore(int nth, Duration delay) {
    rules.add(new Rule(nth, delay.toMillis(), 0, null, null));
    return this;
  }

  /** Lets the n-th attach RPC reach the server, holds its answer for {@code hold}, then fails it with {@code status}. */
  public AttachFaults holdThenFail(int nth, Duration hold, Status status) {
    rules.add(new Rule(nth, 0, hold.toMillis(), status, null));
    return this;
  }

  /** Turns the n-th attach RPC away with {@code status} without sending it. */
  public AttachFaults reject(int nth, Status status) {
    rules.add(new Rule(nth, 0, 0, null, status));
    return this;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    String name = method.getBareMethodName();
    if (!"ExecuteMultiOperation".equals(name) && !"UpdateWorkflowExecution".equals(name)) {
      return next.newCall(method, options);
    }
    return new Deferred<>(next.newCall(method, options));
  }

  private static boolean isAttach(Object message) {
    if (message instanceof ExecuteMultiOperationRequest) {
      return true;
    }
    return message instanceof UpdateWorkflowExecutionRequest u && "attach".equals(u.getRequest().getInput().getName());
  }

  /** A call whose start waits for its one request message, so a rule can see it first. */
  private final class Deferred<Q, R> extends ClientCall<Q, R> {
    private final ClientCall<Q, R> delegate;
    private Listener<R> listener;
    private Metadata headers;
    private int requested;
    private boolean started;
    private boolean rejected;

    Deferred(ClientCall<Q, R> delegate) {
      this.delegate = delegate;
    }

    @Override
    public void start(Listener<R> listener, Metadata headers) {
      this.listener = listener;
      this.headers = headers;
    }

    @Override
    public void request(int numMessages) {
      if (started) {
        delegate.request(numMessages);
      } else {
        requested += numMessages;
      }
    }

    @Override
    public void cancel(String message, Throwable cause) {
      if (started) {
        delegate.cancel(message, cause);
      }
    }

    @Override
    public void halfClose() {
      if (started) {
        delegate.halfClose();
      }
    }

    @Override
    public void sendMessage(Q message) {
      Rule rule = null;
      if (isAttach(message)) {
        int n = attaches.incrementAndGet();
        if (message instanceof ExecuteMultiOperationRequest) {
          starts.incrementAndGet();
        }
        for (Rule r : rules) {
          if (r.nth() == n) {
            rule = r;
          }
        }
      }
      if (rule != null && rule.reject() != null) {
        rejected = true;
        listener.onClose(rule.reject().withDescription("injected: turned away"), new Metadata());
        return;
      }
      if (rule != null && rule.delayMillis() > 0) {
        sleep(rule.delayMillis());
      }
      Listener<R> target = listener;
      if (rule != null && rule.afterServer() != null) {
        Rule hold = rule;
        target = new Listener<>() {
          @Override
          public void onHeaders(Metadata h) {
            // the answer is lost: nothing of it reaches the caller
          }

          @Override
          public void onMessage(R m) {
            // dropped
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            sleep(hold.holdMillis());
            listener.onClose(hold.afterServer().withDescription("injected after the server took the request"), new Metadata());
          }

          @Override
          public void onReady() {
            listener.onReady();
          }
        };
      }
      started = true;
      delegate.start(target, headers);
      if (requested > 0) {
        delegate.request(requested);
      }
      delegate.sendMessage(message);
    }

    @Override
    public boolean isReady() {
      return !started || delegate.isReady();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
