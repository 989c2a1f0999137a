package io.onceport.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.Dependency.Predicates.dependencyOrigin;
import static com.tngtech.archunit.core.domain.Dependency.Predicates.dependencyTarget;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameEndingWith;
import static com.tngtech.archunit.lang.conditions.ArchConditions.onlyHaveDependenciesWhere;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.onceport.activity.archfixture.ActivityReachingIntoFrontEnd;
import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.dispatch.DispatchJournal;
import io.onceport.activity.vault.Credential;
import io.onceport.activity.vault.archfixture.VaultReachingIntoDispatch;
import io.onceport.architecture.archfixture.ClientReachingIntoImplementations;
import io.onceport.frontend.archfixture.FrontEndWiringAWorker;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.shared.archfixture.SharedReachingIntoWorkflows;
import io.onceport.workflow.archfixture.NondeterministicWorkflowCode;
import io.onceport.workflow.archfixture.WorkflowReachingIntoActivities;
import io.onceport.workflow.archfixture.WorkflowReachingIntoFrontEnd;
import io.onceport.workflow.contract.ToolContract;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dependency direction of ARCHITECTURE.md: mcp-frontend → workflows ← activities, with
 * {@code app/} (the composition root) wiring them and {@code shared/} (payload codec, private
 * files) under both roles; and workflow code stays deterministic (no I/O, no clocks, no randomness
 * outside {@code Workflow.*}).
 *
 * <p>Each rule added for issue 15 is also evaluated against a deliberately wrong fixture class
 * (test sources, packages ending in {@code archfixture}, never imported with the product) and
 * must report it, so none of them passes merely because it selects nothing.
 */
@Timeout(120)
class ArchitectureTest {
  /**
   * Temporal's test server offers no public way to bind a chosen address (its
   * {@code TestServer.createPortBoundServer} listens on every interface and does not report a
   * free port), and the embedded engine must listen on loopback only; so {@link EmbeddedEngine}
   * may use {@code io.temporal.internal.testservice}, and no other internal package. So may the
   * one class that works around that server's ever-growing lock ledger when the engine starts
   * ({@code TimerLockLedger}, package-private beside it; {@code TimerLockLedgerTest} fails when an
   * SDK upgrade changes what it relies on).
   */
  private static final String EMBEDDED_ENGINE = EmbeddedEngine.class.getName();
  private static final String TIMER_LOCK_LEDGER = EmbeddedEngine.class.getPackageName() + ".TimerLockLedger";

  private static final DescribedPredicate<JavaClass> A_DEPENDENCYS_INTERNALS =
      resideInAPackage("..internal..").and(not(resideInAPackage("io.onceport.."))).as("a dependency's internal package");

  static final ArchRule NO_DEPENDENCY_INTERNALS = classes().should(onlyHaveDependenciesWhere(
          not(dependencyTarget(A_DEPENDENCYS_INTERNALS))
              .or(dependencyOrigin(EMBEDDED_ENGINE).or(dependencyOrigin(TIMER_LOCK_LEDGER))
                  .and(dependencyTarget(resideInAPackage("io.temporal.internal.testservice"))))))
      .because("internal packages are not a dependency's API and change without notice");

  static final ArchRule NO_WORKFLOW_IMPL_OUTSIDE_WORKFLOWS = noClasses().that().resideOutsideOfPackage("io.onceport.workflow..")
      .should().dependOnClassesThat(resideInAPackage("io.onceport.workflow..").and(simpleNameEndingWith("WorkflowImpl")))
      .because("clients use the workflow interfaces, ExecutionSearchAttributes and WorkflowImplementations"
          + " (the bench's bare-Temporal baseline has a workflow implementation of its own)");

  /** The five source roots, one top-level package each; a class elsewhere would escape the rules below. */
  static final ArchRule EVERY_CLASS_IN_A_SOURCE_ROOT = classes().should().resideInAnyPackage(
          "io.onceport.app..", "io.onceport.frontend..", "io.onceport.workflow..", "io.onceport.activity..", "io.onceport.shared..")
      .because("the structure is visible from the folder names: app/, mcp-frontend/, workflows/, activities/, shared/");

  static final ArchRule FRONT_END_DOES_NOT_DEPEND_ON_ACTIVITIES = noClasses().that().resideInAPackage("io.onceport.frontend..")
      .should().dependOnClassesThat().resideInAPackage("io.onceport.activity..")
      .because("the front end never talks to a target; what its read path needs from the worker's side"
          + " (a channel with the vault's credentials) is an interface it owns, implemented in app/");

  static final ArchRule ACTIVITIES_DO_NOT_DEPEND_ON_THE_FRONT_END = noClasses().that().resideInAPackage("io.onceport.activity..")
      .should().dependOnClassesThat().resideInAPackage("io.onceport.frontend..")
      .because("activities run on workers, which need no MCP front end");

  static final ArchRule WORKFLOWS_DEPEND_ON_NEITHER_ROLE = noClasses().that().resideInAPackage("io.onceport.workflow..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "io.onceport.activity..", "io.onceport.frontend..", "io.onceport.app..", "io.onceport.shared..")
      .because("workflows/ is the deterministic model both roles build on; it does no I/O and knows neither role");

  static final ArchRule SHARED_DEPENDS_ON_NO_ROLE = noClasses().that().resideInAPackage("io.onceport.shared..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "io.onceport.app..", "io.onceport.frontend..", "io.onceport.workflow..", "io.onceport.activity..")
      .because("shared/ holds what both roles use (payload codec, private files) and so depends on neither");

  static final ArchRule ONLY_THE_APPLICATION_DEPENDS_ON_IT = noClasses().that().resideOutsideOfPackage("io.onceport.app..")
      .should().dependOnClassesThat().resideInAPackage("io.onceport.app..")
      .because("app/ is the composition root: it may depend on every root, and nothing depends on it");

  static final ArchRule VAULT_DOES_NOT_DEPEND_ON_DISPATCH = noClasses().that().resideInAPackage("io.onceport.activity.vault..")
      .should().dependOnClassesThat().resideInAPackage("io.onceport.activity.dispatch..")
      .because("dispatch resolves credentials from the vault, not the other way round");

  /**
   * Top-level slices (frontend, workflow, activity) and the feature slices below them. Cycles are
   * counted in bytecode, where compile-time constants (ErrorTypes) are inlined and leave no edge.
   */
  static final List<ArchRule> SLICES_FREE_OF_CYCLES = List.of(
      slices().matching("io.onceport.(*)..").should().beFreeOfCycles(),
      slices().matching("io.onceport.(*).(*)..").should().beFreeOfCycles());

  private static final DescribedPredicate<JavaMethodCall> READS_A_CLOCK = DescribedPredicate.describe(
      "a java.time now() or system clock",
      call -> call.getTargetOwner().getPackageName().equals("java.time")
          && (call.getName().equals("now") || call.getTargetOwner().isEquivalentTo(java.time.Clock.class)));

  private static final DescribedPredicate<JavaConstructorCall> STARTS_A_THREAD = DescribedPredicate.describe(
      "new Thread", call -> call.getTargetOwner().isAssignableTo(Thread.class));

  static final ArchRule WORKFLOWS_READ_NO_CLOCK_NO_RANDOMNESS_NO_ENVIRONMENT = noClasses().that().resideInAPackage("io.onceport.workflow..")
      .should().callMethod(System.class, "currentTimeMillis")
      .orShould().callMethod(System.class, "nanoTime")
      .orShould().callMethodWhere(READS_A_CLOCK)
      .orShould().callMethod(UUID.class, "randomUUID")
      .orShould().callConstructor(Random.class)
      .orShould().callMethod(Math.class, "random")
      .orShould().callMethod(StrictMath.class, "random")
      .orShould().callMethod(System.class, "getenv")
      .orShould().callMethod(System.class, "getenv", String.class)
      .orShould().callMethod(System.class, "getProperty", String.class)
      .orShould().callMethod(System.class, "getProperty", String.class, String.class)
      .orShould().callMethod(System.class, "getProperties")
      .orShould().callConstructorWhere(STARTS_A_THREAD)
      .orShould().callMethod(Thread.class, "sleep", long.class)
      .because("workflow code replays: time, randomness and waiting come from Workflow.*, configuration from the workflow input");

  private static JavaClasses classes;

  /**
   * The product's classes, read from the directory they were compiled to (all source roots share
   * it) rather than by scanning every jar on the class path for the package, which is much slower.
   */
  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importUrl(ToolContract.class.getProtectionDomain().getCodeSource().getLocation());
    assertTrue(classes.containPackage("io.onceport.frontend.mcp") && classes.containPackage("io.onceport.activity.http")
        && classes.containPackage("io.onceport.app.cli") && classes.containPackage("io.onceport.shared.codec"), "product classes imported");
  }

  @Test
  void everyClassResidesInOneOfTheFiveSourceRootsPackages() {
    EVERY_CLASS_IN_A_SOURCE_ROOT.check(classes);
  }

  @Test
  void theSourceRootRuleReportsAClassOutsideThem() {
    assertReports(EVERY_CLASS_IN_A_SOURCE_ROOT, fixtures(ClientReachingIntoImplementations.class), "io.onceport.architecture.archfixture");
  }

  @Test
  void theFrontEndDoesNotDependOnActivities() {
    FRONT_END_DOES_NOT_DEPEND_ON_ACTIVITIES.check(classes);
  }

  @Test
  void theFrontEndRuleReportsFrontEndCodeResolvingCredentials() {
    assertReports(FRONT_END_DOES_NOT_DEPEND_ON_ACTIVITIES, fixtures(FrontEndWiringAWorker.class), "CredentialResolver");
  }

  @Test
  void workflowsDependOnNeitherActivitiesNorTheFrontEnd() {
    WORKFLOWS_DEPEND_ON_NEITHER_ROLE.check(classes);
  }

  @Test
  void theWorkflowRuleReportsWorkflowCodeReachingActivitiesTheCodecAndTheFrontEnd() {
    JavaClasses fixtures = fixtures(WorkflowReachingIntoActivities.class, WorkflowReachingIntoFrontEnd.class);
    assertReports(WORKFLOWS_DEPEND_ON_NEITHER_ROLE, fixtures, "CredentialResolver");
    assertReports(WORKFLOWS_DEPEND_ON_NEITHER_ROLE, fixtures, "Payloads");
    assertReports(WORKFLOWS_DEPEND_ON_NEITHER_ROLE, fixtures, "ContractLoader");
  }

  @Test
  void activitiesDoNotDependOnTheFrontEnd() {
    ACTIVITIES_DO_NOT_DEPEND_ON_THE_FRONT_END.check(classes);
  }

  @Test
  void theActivitiesRuleReportsActivityCodeUsingAFrontEndType() {
    assertReports(ACTIVITIES_DO_NOT_DEPEND_ON_THE_FRONT_END, fixtures(ActivityReachingIntoFrontEnd.class), "ToolCall");
  }

  @Test
  void sharedCodeDependsOnNoRole() {
    SHARED_DEPENDS_ON_NO_ROLE.check(classes);
  }

  @Test
  void theSharedRuleReportsSharedCodeUsingTheWorkflowModel() {
    assertReports(SHARED_DEPENDS_ON_NO_ROLE, fixtures(SharedReachingIntoWorkflows.class), "ToolContract");
  }

  @Test
  void onlyTheApplicationDependsOnTheApplication() {
    ONLY_THE_APPLICATION_DEPENDS_ON_IT.check(classes);
  }

  @Test
  void theCompositionRootRuleReportsFrontEndCodeReachingIntoTheWorkerWiring() {
    assertReports(ONLY_THE_APPLICATION_DEPENDS_ON_IT, fixtures(FrontEndWiringAWorker.class), "WorkerRuntime");
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
  void workflowsReadNoClockNoRandomSourceAndNoEnvironmentAndStartNoThread() {
    WORKFLOWS_READ_NO_CLOCK_NO_RANDOMNESS_NO_ENVIRONMENT.check(classes);
  }

  @Test
  void theDeterminismRuleReportsEachForbiddenCall() {
    List<String> details = WORKFLOWS_READ_NO_CLOCK_NO_RANDOMNESS_NO_ENVIRONMENT
        .evaluate(fixtures(NondeterministicWorkflowCode.class)).getFailureReport().getDetails();
    for (String forbidden : List.of("Math.random()", "Instant.now()", "LocalDateTime.now()", "System.currentTimeMillis()",
        "System.getenv(java.lang.String)", "System.getProperty(java.lang.String)", "Thread.<init>(java.lang.Runnable)")) {
      assertEquals(1, details.stream().filter(d -> d.contains(forbidden)).count(), forbidden + " in " + details);
    }
    assertEquals(7, details.size(), String.join("\n", details));
  }

  @Test
  void noClassUsesADependencysInternalPackages() {
    NO_DEPENDENCY_INTERNALS.check(classes);
  }

  @Test
  void theInternalPackagesRuleReportsAnOkHttpInternalClass() {
    EvaluationResult result = NO_DEPENDENCY_INTERNALS.evaluate(fixtures(ClientReachingIntoImplementations.class));
    assertTrue(result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains("okhttp3.internal.http.HttpMethod")),
        String.join("\n", result.getFailureReport().getDetails()));
  }

  @Test
  void nothingOutsideWorkflowsDependsOnAWorkflowImplementation() {
    NO_WORKFLOW_IMPL_OUTSIDE_WORKFLOWS.check(classes);
  }

  @Test
  void theWorkflowImplementationRuleReportsAClientReadingOne() {
    EvaluationResult result = NO_WORKFLOW_IMPL_OUTSIDE_WORKFLOWS.evaluate(fixtures(ClientReachingIntoImplementations.class));
    assertTrue(result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains("ToolExecutionWorkflowImpl")),
        String.join("\n", result.getFailureReport().getDetails()));
  }

  @Test
  void theVaultDoesNotDependOnDispatch() {
    VAULT_DOES_NOT_DEPEND_ON_DISPATCH.check(classes);
  }

  @Test
  void theVaultRuleReportsVaultCodeReachingIntoDispatch() {
    EvaluationResult result = VAULT_DOES_NOT_DEPEND_ON_DISPATCH.evaluate(fixtures(VaultReachingIntoDispatch.class));
    assertTrue(result.getFailureReport().getDetails().stream().anyMatch(d -> d.contains("DispatchJournal")),
        String.join("\n", result.getFailureReport().getDetails()));
  }

  @Test
  void slicesAreFreeOfCycles() {
    SLICES_FREE_OF_CYCLES.forEach(rule -> rule.check(classes));
  }

  @Test
  void theCycleRulesReportACycleBetweenTopLevelAndBetweenFeatureSlices() {
    // Each fixture plus the product classes that close its loop (importing the whole product again is slow).
    JavaClasses topLevelCycle = fixtures(WorkflowReachingIntoFrontEnd.class, ContractLoader.class, ToolContract.class);
    assertTrue(SLICES_FREE_OF_CYCLES.get(0).evaluate(topLevelCycle).hasViolation(), "workflow → frontend → workflow");
    JavaClasses featureCycle = fixtures(VaultReachingIntoDispatch.class, DispatchJournal.class, DispatchContext.class, Credential.class);
    assertTrue(SLICES_FREE_OF_CYCLES.get(1).evaluate(featureCycle).hasViolation(), "activity.vault → activity.dispatch → activity.vault");
  }

  /** The rule reports a violation on the fixtures whose description names {@code expected}. */
  private static void assertReports(ArchRule rule, JavaClasses fixtures, String expected) {
    List<String> details = rule.evaluate(fixtures).getFailureReport().getDetails();
    assertTrue(details.stream().anyMatch(d -> d.contains(expected)), expected + " not in:\n" + String.join("\n", details));
  }

  private static JavaClasses fixtures(Class<?>... fixtures) {
    return new ClassFileImporter().importClasses(fixtures);
  }
}
