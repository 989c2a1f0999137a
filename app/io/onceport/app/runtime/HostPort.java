package io.onceport.app.runtime;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** A {@code HOST:PORT} option value, checked when parsed. */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("missing host");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  public static HostPort parse(String value) {
    int colon = value == null ? -1 : value.lastIndexOf(':');
    if (colon <= 0 || colon == value.length() - 1) {
      throw new IllegalArgumentException("expected HOST:PORT, got '" + value + "'");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new HostPort(host, Integer.parseInt(value.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected HOST:PORT with a numeric port, got '" + value + "'");
    }
  }

  /** True when the host is a loopback address (127.0.0.0/8, ::1, localhost). */
  public boolean isLoopback() {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
