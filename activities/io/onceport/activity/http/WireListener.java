package io.onceport.activity.http;

import java.net.InetSocketAddress;
import java.net.Proxy;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;

/**
 * Records whether request bytes may have left (set when OkHttp starts writing the request), and,
 * for a read channel's stale-connection rule, whether the call took a pooled connection (acquired
 * without connecting) and whether any response began.
 */
final class WireListener extends EventListener {
  volatile boolean requestStarted;
  volatile boolean connected;
  volatile boolean acquired;
  volatile boolean responseStarted;

  boolean reusedConnection() {
    return acquired && !connected;
  }

  @Override
  public void connectStart(Call call, InetSocketAddress address, Proxy proxy) {
    connected = true;
  }

  @Override
  public void connectionAcquired(Call call, Connection connection) {
    acquired = true;
  }

  @Override
  public void responseHeadersStart(Call call) {
    responseStarted = true;
  }

  @Override
  public void requestHeadersStart(Call call) {
    requestStarted = true;
  }

  @Override
  public void requestBodyStart(Call call) {
    requestStarted = true;
  }
}
