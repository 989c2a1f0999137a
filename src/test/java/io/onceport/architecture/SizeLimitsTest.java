package io.onceport.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15's size rule for the main sources: no class (source file) over 400 lines and no method
 * over 50 lines, unless a javadoc gives the reason after {@value SourceSizes#MARKER} — the
 * method's own, or its class's naming the method (so a frozen class such as {@code ToolExecutionV1}
 * can keep its code byte for byte). A method runs from the line of its name to its closing brace.
 */
@Timeout(60)
class SizeLimitsTest {
  static final int CLASS_LIMIT = 400;
  static final int METHOD_LIMIT = 50;

  private static final List<Path> MAIN_ROOTS =
      Stream.of("app", "mcp-frontend", "workflows", "activities", "shared").map(Path::of).toList();

  private static final Path FIXTURES = Path.of("src/test/java/io/onceport/architecture/archfixture");

  /** Issue 27's bound on the front end's Temporal package: one call's way to the engine, and what a measured figure keeps. */
  static final int FRONT_END_TEMPORAL_LIMIT = 1_800;

  @Test
  void theFrontEndsTemporalPackageStaysWithinItsBound() throws IOException {
    Path dir = Path.of("mcp-frontend/io/onceport/frontend/temporal");
    long lines = 0;
    int files = 0;
    try (Stream<Path> paths = Files.list(dir)) {
      for (Path p : paths.filter(x -> x.toString().endsWith(".java")).toList()) {
        files++;
        lines += Files.readAllLines(p).size();
      }
    }
    assertTrue(files > 5, "expected the package's sources, found " + files + " files in " + dir);
    assertTrue(lines <= FRONT_END_TEMPORAL_LIMIT, dir + " is " + lines + " lines, over " + FRONT_END_TEMPORAL_LIMIT
        + ": delete what no measured figure keeps, or move what is not the front end's out (docs/architecture.md)");
  }

  @Test
  void noMainMethodIsOverFiftyLinesAndNoMainClassOverFourHundredWithoutAReasonInItsJavadoc() throws IOException {
    List<Offence> offences = new ArrayList<>();
    int files = 0;
    int members = 0;
    for (Path root : MAIN_ROOTS) {
      assertTrue(Files.isDirectory(root), "run from the project root: " + root);
      try (Stream<Path> paths = Files.walk(root)) {
        for (Path p : paths.filter(x -> x.toString().endsWith(".java")).sorted().toList()) {
          files++;
          SourceSizes.Measured m = measure(p);
          members += m.members().size();
          offences.addAll(offences(p, m, CLASS_LIMIT, METHOD_LIMIT));
        }
      }
    }
    assertTrue(files > 200, "expected the main sources, found " + files + " files");
    assertTrue(members > 1000, "expected the main sources' methods, found " + members);
    assertEquals(List.of(), offences.stream().map(Offence::message).toList(),
        "long without a reason (add one after '" + SourceSizes.MARKER + "' or split)");
  }

  @Test
  void theSizeRuleReportsALongMethodAndALongClassWithoutAReasonAndOnlyThose() {
    Path longMembers = FIXTURES.resolve("LongMembersFixture.java");
    SourceSizes.Measured m = measure(longMembers);
    List<String> reported = messages(offences(longMembers, m, m.lines() - 1, METHOD_LIMIT));
    assertEquals(3, reported.size(), reported::toString);
    assertTrue(reported.get(0).contains("class is " + m.lines() + " lines"), reported::toString);
    assertTrue(reported.get(1).contains("fiftyOneLinesWithoutAReason is 51 lines"), reported::toString);
    assertTrue(reported.get(2).contains("nestedFiftyOneLines is 51 lines"), reported::toString);

    Path explained = FIXTURES.resolve("ExplainedLongFixture.java");
    SourceSizes.Measured e = measure(explained);
    List<String> onlyTheUnnamed = messages(offences(explained, e, e.lines() - 1, METHOD_LIMIT));
    assertEquals(1, onlyTheUnnamed.size(), onlyTheUnnamed::toString);
    assertTrue(onlyTheUnnamed.get(0).contains("notNamedByTheClass is 51 lines"), onlyTheUnnamed::toString);
  }

  @Test
  void theScannerMeasuresMethodsFromTheirNameToTheirClosingBraceAcrossLiteralsCommentsAndNestedBodies() {
    SourceSizes.Measured m = measure(FIXTURES.resolve("LongMembersFixture.java"));
    Map<String, Integer> lengths = m.members().stream()
        .collect(Collectors.toMap(SourceSizes.Member::name, SourceSizes.Member::length));
    assertEquals(Map.of(
        "LongMembersFixture", 1, "fiftyOneLinesWithoutAReason", 51, "fiftyOneLinesWithAReason", 51, "fiftyLines", 50,
        "bracesInsideLiteralsAndNestedBodies", 13, "Nested", 1, "nestedFiftyOneLines", 51), lengths);
  }

  /**
   * The scanner must not miss a method (a missed one could be long unnoticed): every method the
   * compiler compiled from the main sources starts (its first line of code, from the class file's
   * line table) inside a member the scanner measured in that source file. Constructors (whose line
   * table includes field initializers), synthetic and bridge methods, anonymous classes, and what
   * records and enums generate have no declaration of their own to find, and are left out.
   */
  @Test
  void theScannerFindsEveryMethodTheCompilerCompiledFromTheMainSources() {
    JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importUrl(io.onceport.workflow.contract.ToolContract.class.getProtectionDomain().getCodeSource().getLocation());
    Map<Path, SourceSizes.Measured> measured = new HashMap<>();
    List<String> missed = new ArrayList<>();
    int checked = 0;
    for (JavaClass c : main) {
      if (c.isAnonymousClass() || c.isEnum() || c.getRawSuperclass().map(x -> x.isEquivalentTo(Record.class)).orElse(false)
          || c.getName().contains("$$")) {
        continue;
      }
      Path file = sourceOf(c);
      if (file == null) {
        continue;
      }
      SourceSizes.Measured m = measured.computeIfAbsent(file, SizeLimitsTest::measure);
      for (JavaMethod method : c.getMethods()) {
        int line = method.getSourceCodeLocation().getLineNumber();
        if (line <= 0 || method.getName().contains("$") || method.getModifiers().contains(JavaModifier.SYNTHETIC)
            || method.getModifiers().contains(JavaModifier.BRIDGE)) {
          continue;
        }
        checked++;
        if (m.members().stream().noneMatch(x -> x.firstLine() <= line && line <= x.lastLine())) {
          missed.add(file + ":" + line + " " + method.getName());
        }
      }
    }
    assertTrue(checked > 1000, "expected the main sources' methods, checked " + checked);
    assertEquals(List.of(), missed, "methods the scanner did not measure");
  }

  /** The source file of a class: its top-level class's name under the one source root that has it. */
  private static Path sourceOf(JavaClass c) {
    JavaClass top = c;
    while (top.getEnclosingClass().isPresent()) {
      top = top.getEnclosingClass().get();
    }
    String relative = top.getName().replace('.', '/') + ".java";
    return MAIN_ROOTS.stream().map(r -> r.resolve(relative)).filter(Files::isRegularFile).findFirst().orElse(null);
  }

  private static List<String> messages(List<Offence> offences) {
    return offences.stream().map(Offence::message).toList();
  }

  private static SourceSizes.Measured measure(Path p) {
    try {
      return SourceSizes.measure(Files.readString(p));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(p + ": " + e.getMessage(), e);
    }
  }

  /** One offence: {@code key} is {@code path} for the class, {@code path#name} for a member. */
  record Offence(String key, String message) {}

  static List<Offence> offences(Path p, SourceSizes.Measured m, int classLimit, int methodLimit) {
    String file = p.toString().replace('\\', '/');
    List<Offence> out = new ArrayList<>();
    if (m.lines() > classLimit && !m.typeExplained()) {
      out.add(new Offence(file, file + ": class is " + m.lines() + " lines (limit " + classLimit + ")"));
    }
    for (SourceSizes.Member member : m.members()) {
      if (member.length() > methodLimit && !member.explained() && !m.typeExplains(member)) {
        out.add(new Offence(file + "#" + member.name(), file + ":" + member.firstLine() + ": " + member.name() + " is "
            + member.length() + " lines (limit " + methodLimit + ")"));
      }
    }
    return out;
  }
}
