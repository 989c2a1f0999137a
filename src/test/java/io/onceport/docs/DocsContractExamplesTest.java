package io.onceport.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.frontend.contract.ContractLoadException;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.contract.ContractVariables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every contract shown in README.md and docs/*.md — a {@code yaml} block with a top-level
 * {@code channel:} — loads with the real loader, so the documentation cannot show a contract the
 * gateway refuses (as docs/ssh.md once showed a placeholder the loader rejected).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DocsContractExamplesTest {
  private static final Pattern YAML_BLOCK = Pattern.compile("```ya?ml\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern CONTRACT = Pattern.compile("^channel:", Pattern.MULTILINE);

  @TempDir Path tmp;

  record Example(Path doc, int line, String text) {}

  static List<Example> examples() throws Exception {
    List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    List<Example> out = new ArrayList<>();
    for (Path doc : docs) {
      String text = Files.readString(doc);
      Matcher m = YAML_BLOCK.matcher(text);
      while (m.find()) {
        if (CONTRACT.matcher(m.group(1)).find()) {
          out.add(new Example(doc, text.substring(0, m.start()).split("\n", -1).length, m.group(1)));
        }
      }
    }
    return out;
  }

  @Test
  void everyContractExampleInTheDocsLoads() throws Exception {
    List<Example> examples = examples();
    assertTrue(examples.size() >= 3, "README's create_release, README's and docs/ssh.md's SSH examples: " + examples);
    List<String> problems = new ArrayList<>();
    for (Example e : examples) {
      Path dir = Files.createDirectories(tmp.resolve(e.doc().getFileName() + "-" + e.line()));
      Files.writeString(dir.resolve("example.yaml"), e.text());
      try {
        ContractSet set = new ContractLoader(ContractVariables.of(Map.of(), Map.of())).load(dir);
        assertEquals(1, set.size(), e.toString());
      } catch (ContractLoadException ex) {
        problems.add(e.doc() + " (block at line " + e.line() + "):\n  " + String.join("\n  ", ex.errors()));
      }
    }
    assertEquals(List.of(), problems);
  }
}
