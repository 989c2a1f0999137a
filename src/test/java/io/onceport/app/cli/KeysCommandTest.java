package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.onceport.shared.codec.KeyRing;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class KeysCommandTest {
  @TempDir Path data;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  @Test
  void rotateCreatesTheFirstKeyThenANewActiveOne() {
    assertEquals(0, run("keys", "rotate", "--data", data.toString()));
    String first = KeyRing.load(data).activeId();
    assertEquals(0, run("keys", "rotate", "--data", data.toString()));
    String second = KeyRing.load(data).activeId();
    Path dir = data.resolve("keys/payload");

    assertEquals("active payload key: " + first + " (" + dir + ")\nactive payload key: " + second + " (" + dir + ")\n",
        out.toString());
    out.getBuffer().setLength(0);
    assertEquals(0, run("keys", "list", "--data", data.toString()));
    assertEquals("  " + first + "\n* " + second + "\n", out.toString());
  }

  @Test
  void initCreatesOneKeyAndIsIdempotent() {
    assertEquals(0, run("keys", "init", "--data", data.toString()));
    assertEquals(0, run("keys", "init", "--data", data.toString()));
    KeyRing ring = KeyRing.load(data);
    assertEquals(1, ring.ids().size());
    String line = "active payload key: " + ring.activeId() + " (" + data.resolve("keys/payload") + ")\n";
    assertEquals(line + line, out.toString());
  }

  @Test
  void listNeverPrintsKeyBytes() throws Exception {
    run("keys", "rotate", "--data", data.toString());
    String id = KeyRing.load(data).activeId();
    byte[] material = Files.readAllBytes(data.resolve("keys/payload").resolve(id));
    out.getBuffer().setLength(0);

    run("keys", "list", "--data", data.toString());

    assertFalse(out.toString().toLowerCase().contains(HexFormat.of().formatHex(material)));
    assertFalse(out.toString().contains(java.util.Base64.getEncoder().encodeToString(material)));
  }

  @Test
  void listWithoutKeysIsOneClearLine() {
    assertEquals(1, run("keys", "list", "--data", data.toString()));
    assertEquals("onceport: no payload keys in " + data.resolve("keys/payload")
        + " (they are created by the first `onceport serve`, or by `onceport keys rotate`)", err.toString().strip());
  }
}
