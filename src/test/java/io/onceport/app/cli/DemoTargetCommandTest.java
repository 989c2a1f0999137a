package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DemoTargetCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void busyPortIsOneClearLineWithWhatToDoAndExitOne() throws Exception {
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = busy.getLocalPort();
      int code = run("demo-target", "--listen", "127.0.0.1:" + port);

      assertEquals(1, code);
      assertEquals("onceport: cannot listen on 127.0.0.1:" + port + ": address already in use (a demo target already running? "
          + "`curl -s http://127.0.0.1:" + port + "/ledger` answers if so, and it can be used as it is; else stop what holds "
          + "the port, or choose another with onceport demo-target --listen 127.0.0.1:PORT and DEMO_TARGET=http://127.0.0.1:PORT "
          + "for serve)", err.toString().strip());
    }
  }

  @Test
  void malformedListenAddressIsRejected() {
    int code = run("demo-target", "--listen", "8766");

    assertEquals(1, code);
    assertEquals("onceport: invalid --listen '8766': expected HOST:PORT", err.toString().strip());
  }

  @Test
  void helpDescribesTheListenOptionAndItsDefault() {
    int code = run("demo-target", "--help");

    assertEquals(0, code);
    assertTrue(out.toString().contains("--listen=HOST:PORT"), out.toString());
    assertTrue(out.toString().contains("(default: 127.0.0.1:8766)"), out.toString());
  }

  @Test
  void helpNamesEveryFaultTheTargetAccepts() {
    int code = run("demo-target", "--help");

    assertEquals(0, code);
    for (String fault : io.onceport.app.demo.DemoTarget.FAULTS.split(" \\| ")) {
      String name = fault.replaceAll("\\[.*", "");
      assertTrue(out.toString().contains(name), name + " in " + out);
    }
    assertTrue(out.toString().contains("status=503,retry-after=0"), out.toString());
    assertTrue(out.toString().contains("202 still processing"), out.toString());
  }
}
