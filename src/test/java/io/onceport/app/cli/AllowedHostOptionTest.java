package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.onceport.app.runtime.FrontendSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --allowed-host}: required off loopback for {@code serve} and {@code frontend}, also from the config file. */
class AllowedHostOptionTest {
  @TempDir Path dir;

  private static <T> T command(Class<T> type, String... args) {
    CommandLine cl = OnceportCommand.commandLine(args);
    CommandLine.ParseResult parsed = cl.parseArgs(OnceportCommand.withoutConfig(args));
    return type.cast(parsed.subcommand().commandSpec().userObject());
  }

  @Test
  void serveOffLoopbackWithoutAllowedHostExitsWithAClearMessageBeforeStartingAnything() {
    PrintStream before = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try {
      System.setErr(new PrintStream(err, true));
      exit = io.onceport.app.Main.run("serve", "--listen", "0.0.0.0:0", "--data", dir.resolve("data").toString(),
          "--contracts", "contracts");
    } finally {
      System.setErr(before);
    }
    assertEquals(1, exit, err.toString());
    assertEquals("onceport: --listen 0.0.0.0:0 is not a loopback address: name the host names clients use to reach it with "
        + "--allowed-host (repeatable, e.g. --allowed-host mcp.example.com); any other Host header is refused",
        err.toString().strip());
  }

  @Test
  void frontendOffLoopbackNeedsAllowedHost() {
    RoleCommands.FrontendCommand f = command(RoleCommands.FrontendCommand.class, "frontend", "--listen", "10.0.0.5:8765");
    CliException e = assertThrows(CliException.class, () -> f.frontend.settings("operator"));
    assertEquals("--listen 10.0.0.5:8765 is not a loopback address: name the host names clients use to reach it with "
        + "--allowed-host (repeatable, e.g. --allowed-host mcp.example.com); any other Host header is refused", e.getMessage());
    FrontendSettings ok = command(RoleCommands.FrontendCommand.class, "frontend", "--listen", "10.0.0.5:8765",
        "--allowed-host", "mcp.example.com", "--allowed-host", "10.0.0.5,[::1]").frontend.settings("operator");
    assertEquals(List.of("mcp.example.com", "10.0.0.5", "[::1]"), ok.allowedHosts());
  }

  @Test
  void allowedHostsComeFromTheConfigFileToo() throws Exception {
    Path config = dir.resolve("onceport.yaml");
    Files.writeString(config, "frontend:\n  listen: 0.0.0.0:8765\n  allowed-host: [mcp.example.com, mcp.internal]\n");
    List<String> args = new ArrayList<>(List.of("frontend", "--config", config.toString()));
    RoleCommands.FrontendCommand f = command(RoleCommands.FrontendCommand.class, args.toArray(String[]::new));
    assertEquals(List.of("mcp.example.com", "mcp.internal"), f.frontend.settings("auto").allowedHosts());
  }

  @Test
  void anAllowedHostWithPortOrSchemeIsRefused() {
    for (String bad : List.of("mcp.example.com:8765", "https://mcp.example.com", "", "[::1")) {
      RoleCommands.FrontendCommand f = command(RoleCommands.FrontendCommand.class, "frontend", "--allowed-host", bad);
      CliException e = assertThrows(CliException.class, () -> f.frontend.settings("auto"), bad);
      assertEquals("--allowed-host takes a host name without scheme, port or path (e.g. mcp.example.com), not '" + bad + "'",
          e.getMessage());
    }
  }
}
