package io.onceport.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency direction of ARCHITECTURE.md: mcp-frontend → workflows ← activities, and workflow
 * code stays deterministic (no I/O, no clocks, no randomness outside {@code Workflow.*}).
 */
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.onceport");
  }

  @Test
  void workflowsDependOnNeitherActivitiesNorTheFrontEnd() {
    ArchRule rule = noClasses().that().resideInAPackage("io.onceport.workflow..")
        .should().dependOnClassesThat().resideInAnyPackage("io.onceport.activity..", "io.onceport.frontend..");
    rule.check(classes);
  }

  @Test
  void activitiesDoNotDependOnTheFrontEnd() {
    noClasses().that().resideInAPackage("io.onceport.activity..")
        .should().dependOnClassesThat().resideInAPackage("io.onceport.frontend..")
        .check(classes);
  }

  @Test
  void workflowsUseNoIoLibraries() {
    noClasses().that().resideInAPackage("io.onceport.workflow..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "okhttp3..", "net.schmizz..", "com.hierynomus..", "io.javalin..", "java.net..", "java.nio..", "java.io..",
            "java.sql..", "java.util.concurrent..", "org.bouncycastle..", "io.temporal.client..", "io.temporal.serviceclient..")
        .check(classes);
  }

  @Test
  void workflowsReadNoClockAndNoRandomSource() {
    noClasses().that().resideInAPackage("io.onceport.workflow..")
        .should().callMethod(System.class, "currentTimeMillis")
        .orShould().callMethod(System.class, "nanoTime")
        .orShould().callMethod(java.time.Instant.class, "now")
        .orShould().callMethod(UUID.class, "randomUUID")
        .orShould().callConstructor(Random.class)
        .orShould().callMethod(Thread.class, "sleep", long.class)
        .check(classes);
  }
}
