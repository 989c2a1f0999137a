package io.onceport.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Scans the {@code workflows/} source root for imports that would bring I/O or nondeterminism. */
class WorkflowSourceScanTest {
  private static final Pattern FORBIDDEN = Pattern.compile(
      "^import\\s+(static\\s+)?(java\\.(io|net|nio|sql|util\\.concurrent)\\.|java\\.time\\.Clock|okhttp3\\.|net\\.schmizz\\.|"
          + "com\\.hierynomus\\.|io\\.javalin\\.|org\\.bouncycastle\\.|io\\.onceport\\.(activity|frontend)\\.|"
          + "io\\.temporal\\.(client|serviceclient)\\.)");

  @Test
  void workflowSourcesImportNothingThatDoesIo() throws IOException {
    Path root = Path.of("workflows");
    assertTrue(Files.isDirectory(root), "run from the project root");
    List<String> offences = new ArrayList<>();
    int files = 0;
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.filter(x -> x.toString().endsWith(".java")).toList()) {
        files++;
        List<String> lines = Files.readAllLines(p);
        for (int i = 0; i < lines.size(); i++) {
          if (FORBIDDEN.matcher(lines.get(i).trim()).find()) {
            offences.add(p + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertTrue(files > 10, "expected the workflow sources, found " + files + " files");
    assertEquals(List.of(), offences);
  }

  @Test
  void theScanRecognizesAForbiddenImport() {
    assertTrue(FORBIDDEN.matcher("import okhttp3.OkHttpClient;").find());
    assertTrue(FORBIDDEN.matcher("import java.nio.file.Files;").find());
    assertTrue(FORBIDDEN.matcher("import io.onceport.activity.http.HttpChannel;").find());
    assertTrue(!FORBIDDEN.matcher("import io.temporal.workflow.Workflow;").find());
  }
}
