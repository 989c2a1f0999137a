package io.onceport.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A python3 with the official Python MCP SDK (pinned in src/test/python/requirements.txt):
 * {@code $ONCEPORT_PYTHON_MCP} ({@code .ci/run} exports it), else the venv {@code
 * bin/install-python-mcp} makes. When neither works the test fails if {@code CI} is set and is
 * skipped otherwise.
 */
public final class PythonMcp {
  public static final Path SCRIPTS = Path.of("src/test/python").toAbsolutePath();
  private static Path python;

  private PythonMcp() {}

  public static synchronized Path python() throws IOException, InterruptedException {
    if (python != null) {
      return python;
    }
    String env = System.getenv("ONCEPORT_PYTHON_MCP");
    if (env != null && !env.isBlank() && Files.isExecutable(Path.of(env)) && importsMcp(Path.of(env))) {
      return python = Path.of(env);
    }
    Node22.Result r = Node22.run(List.of("bash", Path.of("bin/install-python-mcp").toAbsolutePath().toString()),
        Path.of(".").toAbsolutePath(), Duration.ofMinutes(5));
    String last = r.output().isEmpty() ? "" : r.output().get(r.output().size() - 1).trim();
    Path candidate = last.isEmpty() ? null : Path.of(last, "python3");
    boolean ok = r.exit() == 0 && candidate != null && Files.isExecutable(candidate) && importsMcp(candidate);
    if (!ok) {
      String message = "the Python MCP SDK is not available (bin/install-python-mcp exit " + r.exit() + "):\n" + r.text();
      if (System.getenv("CI") != null) {
        Assertions.fail("CI is set, so the Python MCP SDK is required: " + message);
      }
      Assumptions.assumeTrue(false, "skipped: " + message);
    }
    return python = candidate;
  }

  private static boolean importsMcp(Path py) throws IOException, InterruptedException {
    return Node22.run(List.of(py.toString(), "-c", "import mcp, httpx2"), Path.of(".").toAbsolutePath(), Duration.ofSeconds(60)).exit() == 0;
  }
}
