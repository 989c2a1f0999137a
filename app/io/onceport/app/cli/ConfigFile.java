package io.onceport.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Option defaults from a YAML config file: {@code --config FILE} anywhere on the command line,
 * else {@code $ONCEPORT_CONFIG}, else {@code ./onceport.yaml} when it exists. Keys are long option
 * names without dashes; a section named after a command ({@code serve:}, {@code worker:},
 * {@code frontend:}) overrides the top level for that command. Command-line options win.
 *
 * <pre>
 * session-authorization: auto
 * data: /var/lib/onceport
 * serve:
 *   listen: 127.0.0.1:9000
 * </pre>
 *
 * <p>{@code auth:} is not option defaults but the OAuth resource-server settings ({@link AuthOptions},
 * docs/auth.md).
 */
final class ConfigFile implements CommandLine.IDefaultValueProvider {
  private final Path file;
  private final JsonNode root;

  private ConfigFile(Path file, JsonNode root) {
    this.file = file;
    this.root = root;
  }

  /** Removes {@code --config FILE} from {@code args} and loads the file it names (or the defaults). */
  static ConfigFile load(List<String> args) {
    Path path = null;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--config") && i + 1 < args.size()) {
        path = Path.of(args.get(i + 1));
        args.remove(i + 1);
        args.remove(i);
        break;
      }
      if (a.startsWith("--config=")) {
        path = Path.of(a.substring("--config=".length()));
        args.remove(i);
        break;
      }
    }
    boolean explicit = path != null;
    if (path == null) {
      String env = System.getenv("ONCEPORT_CONFIG");
      path = env != null && !env.isBlank() ? Path.of(env) : Path.of("onceport.yaml");
      explicit = env != null && !env.isBlank();
    }
    if (!Files.exists(path)) {
      if (explicit) {
        throw new CliException("config file " + path + " does not exist");
      }
      return new ConfigFile(null, null);
    }
    try {
      JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(path.toFile());
      if (root != null && !root.isNull() && !root.isObject()) {
        throw new CliException("config file " + path + ": expected a mapping of option names to values");
      }
      return new ConfigFile(path, root);
    } catch (IOException e) {
      throw new CliException("config file " + path + ": " + e.getMessage().lines().findFirst().orElse("unreadable"));
    }
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (root == null || !(arg instanceof OptionSpec option) || option.longestName() == null) {
      return null;
    }
    String key = option.longestName().replaceFirst("^-+", "");
    String command = option.command() == null ? null : option.command().name();
    JsonNode section = command == null ? null : root.get(command);
    JsonNode value = section != null && section.isObject() && section.has(key) ? section.get(key) : root.get(key);
    if (value == null || value.isNull() || value.isObject()) {
      return null;
    }
    if (value.isArray()) {
      List<String> parts = new ArrayList<>();
      for (Iterator<JsonNode> it = value.elements(); it.hasNext(); ) {
        parts.add(it.next().asText());
      }
      return String.join(",", parts);
    }
    return value.asText();
  }

  Path file() {
    return file;
  }

  /**
   * A section that is not option defaults but structured settings (e.g. {@code auth:}, read by
   * {@link AuthOptions}), or null when the file has none.
   */
  JsonNode section(String name) {
    return root == null ? null : root.get(name);
  }
}
