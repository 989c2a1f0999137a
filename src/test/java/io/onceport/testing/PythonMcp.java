package io.onceport.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A Python with the official MCP SDK (pinned in src/test/python/requirements.txt) for the tests
 * that run a real Python MCP client: {@code $ONCEPORT_PYTHON_MCP} ({@code .ci/run} sets it), else
 * what {@code bin/install-python-mcp} installs. When neither works the test fails if {@code CI} is
 * set and is skipped otherwise.
 */
public final class PythonMcp {
  private static Path python;

  private PythonMcp() {}

  /** The python3 executable whose {@code import mcp} works. */
  public static synchronized Path ready() throws IOException, InterruptedException {
    if (python != null) {
      return python;
    }
    String env = System.getenv("ONCEPORT_PYTHON_MCP");
    if (env != null && !env.isBlank() && Files.isExecutable(Path.of(env))) {
      python = Path.of(env);
      return python;
    }
    Process p = new ProcessBuilder("bash", Path.of("bin/install-python-mcp").toAbsolutePath().toString())
        .redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    boolean done = p.waitFor(10, TimeUnit.MINUTES);
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1).trim();
    Path candidate = last.isEmpty() ? null : Path.of(last, "python3");
    if (!done || p.exitValue() != 0 || candidate == null || !Files.isExecutable(candidate)) {
      String why = "the Python MCP SDK is not available (bin/install-python-mcp: " + String.join("\n", lines) + ")";
      if (System.getenv("CI") != null) {
        Assertions.fail("CI is set, so the Python MCP SDK is required: " + why);
      }
      Assumptions.assumeTrue(false, "skipped: " + why);
    }
    python = candidate;
    return python;
  }
}
