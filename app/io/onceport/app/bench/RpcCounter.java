package io.onceport.app.bench;

import com.google.protobuf.MessageLite;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the gRPC calls the bench JVM makes to the engine, by method, and the bytes of the
 * messages it sends: the gateway, its worker and the bare baseline share the connection, so a
 * batch's difference is what that batch's calls cost in round trips.
 */
final class RpcCounter implements ClientInterceptor {
  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
  private final LongAdder sentBytes = new LongAdder();

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    String name = method.getBareMethodName();
    calls.computeIfAbsent(name, k -> new LongAdder()).increment();
    LongAdder bytes = calls.computeIfAbsent(BYTES + name, k -> new LongAdder());
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void sendMessage(Q message) {
        if (message instanceof MessageLite m) {
          int size = m.getSerializedSize();
          sentBytes.add(size);
          bytes.add(size);
        }
        super.sendMessage(message);
      }
    };
  }

  /** Calls so far other than long polls for tasks (which pollers keep open even when idle). */
  long busyCalls() {
    long n = 0;
    for (Map.Entry<String, LongAdder> e : calls.entrySet()) {
      if (!e.getKey().startsWith("Poll") && !e.getKey().startsWith(BYTES)) {
        n += e.getValue().sum();
      }
    }
    return n;
  }

  /** Calls so far by method, and {@code "(sent bytes)"}. */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    calls.forEach((k, v) -> out.put(k, v.sum()));
    out.put(SENT_BYTES, sentBytes.sum());
    return out;
  }

  static final String SENT_BYTES = "(sent bytes)";
  /** Prefix of the bytes sent by one method's calls. */
  static final String BYTES = "bytes sent: ";

  /** {@code after - before}, per call of a batch of {@code n} calls; methods not called left out. */
  static Map<String, Double> perCall(Map<String, Long> before, Map<String, Long> after, long n) {
    Map<String, Double> out = new TreeMap<>();
    if (n <= 0) {
      return out;
    }
    after.forEach((k, v) -> {
      long d = v - before.getOrDefault(k, 0L);
      if (d > 0) {
        out.put(k, Math.round(d * 100.0 / n) / 100.0);
      }
    });
    return out;
  }
}
