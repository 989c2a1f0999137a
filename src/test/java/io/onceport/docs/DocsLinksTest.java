package io.onceport.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md names a file in this repository (the README once
 * linked design notes outside it), and every {@code #anchor} into the README names one of its
 * headings.
 */
class DocsLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  @Test
  void relativeLinksStayInsideTheRepositoryAndResolve() throws Exception {
    Path root = Path.of("").toAbsolutePath();
    List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    List<String> broken = new ArrayList<>();
    for (Path doc : docs) {
      String text = Files.readString(doc);
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue; // https:, mailto:
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc.toAbsolutePath() : doc.toAbsolutePath().getParent().resolve(file).normalize();
        if (!resolved.startsWith(root) || !Files.exists(resolved)) {
          broken.add(doc + ": " + target + " (not a file in the repository)");
        } else if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
          broken.add(doc + ": " + target + " (no such heading)");
        }
      }
    }
    assertEquals(List.of(), broken);
  }

  /** GitHub-style heading anchors: lower case, spaces to dashes, punctuation dropped. */
  private static List<String> anchors(Path md) throws Exception {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(md)) {
      if (line.startsWith("#")) {
        String title = line.replaceFirst("^#+\\s*", "").toLowerCase();
        out.add(title.replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
      }
    }
    return out;
  }
}
