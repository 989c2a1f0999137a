package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConfigFileTest {
  @TempDir Path dir;

  @Test
  void configFileSuppliesDefaultsWithCommandSectionsFirstAndTheCommandLineWins() throws Exception {
    Path config = dir.resolve("onceport.yaml");
    Files.writeString(config, "session-authorization: auto\ndata: /var/lib/onceport\nserve:\n  listen: 127.0.0.1:9000\n"
        + "allowed-origin: [https://a.example, https://b.example]\n");
    List<String> args = new ArrayList<>(List.of("serve", "--config", config.toString(), "--data", "/tmp/d"));
    CommandLine cl = OnceportCommand.commandLine(args.toArray(String[]::new));
    CommandLine.ParseResult parsed = cl.parseArgs(OnceportCommand.withoutConfig(args.toArray(String[]::new)));
    CommandLine.ParseResult serve = parsed.subcommand();
    ServeCommand command = (ServeCommand) serve.commandSpec().userObject();
    assertEquals("auto", command.common.sessionAuthorization);
    assertEquals("127.0.0.1:9000", command.frontend.listen);
    assertEquals(Path.of("/tmp/d"), command.common.data());
    assertEquals(List.of("https://a.example", "https://b.example"), command.frontend.allowedOrigins);
  }

  @Test
  void aMissingNamedConfigFileIsAClearErrorAndNoFileMeansNoDefaults() {
    CliException e = org.junit.jupiter.api.Assertions.assertThrows(CliException.class,
        () -> OnceportCommand.commandLine("serve", "--config", dir.resolve("nope.yaml").toString()));
    assertEquals("config file " + dir.resolve("nope.yaml") + " does not exist", e.getMessage());
    assertEquals(2, io.onceport.app.Main.run("serve", "--config", dir.resolve("nope.yaml").toString()));
    ConfigFile none = ConfigFile.load(new ArrayList<>(List.of("serve")));
    assertNull(none.file() == null ? null : "found ./onceport.yaml unexpectedly");
  }
}
