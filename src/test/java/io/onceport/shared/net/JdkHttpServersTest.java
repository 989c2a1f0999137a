package io.onceport.shared.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class JdkHttpServersTest {
  private String before;

  @BeforeEach
  void remember() {
    before = System.getProperty(JdkHttpServers.NO_DELAY);
  }

  @AfterEach
  void restore() {
    if (before == null) {
      System.clearProperty(JdkHttpServers.NO_DELAY);
    } else {
      System.setProperty(JdkHttpServers.NO_DELAY, before);
    }
  }

  @Test
  void turnsNagleOffWhenTheJvmWasGivenNoValue() {
    System.clearProperty(JdkHttpServers.NO_DELAY);
    JdkHttpServers.noDelay();
    assertEquals("true", System.getProperty(JdkHttpServers.NO_DELAY));
  }

  @Test
  void keepsAValueTheJvmWasGiven() {
    System.setProperty(JdkHttpServers.NO_DELAY, "false");
    JdkHttpServers.noDelay();
    assertEquals("false", System.getProperty(JdkHttpServers.NO_DELAY), "-Dsun.net.httpserver.nodelay=false is the operator's choice");
  }
}
