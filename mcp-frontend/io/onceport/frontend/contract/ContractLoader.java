package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.ToolContract;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Loads {@code contracts/*.yaml} (one tool per file) into {@link ToolContract}s.
 *
 * <p>The loader is strict on purpose: the replay section decides whether a lost response may lead
 * to a second dispatch, so a typo must never silently turn a rule off. Unknown fields are errors
 * (at every level, with a "did you mean" hint), a side-effecting tool without a complete replay
 * section does not load, and every error names file, line and field. All errors of all files are
 * reported at once.
 *
 * <p>The shape of a file — required fields, types, unknown keys, durations, status-code lists — is
 * the JSON Schema {@code docs/contract.schema.json} ({@link ContractSchema}), the same file editors
 * use; what joins several fields is {@link ContractRules} and {@link ReplayRules}; {@link
 * ContractFile} is the file bound with Jackson and {@link ContractAssembler} makes the contract.
 */
public final class ContractLoader {
  /** Name of the built-in status tool; no contract may define it. */
  public static final String RESERVED_TOOL = "onceport_execution_status";

  public static final Duration DEFAULT_HTTP_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_SSH_TIMEOUT = Duration.ofMinutes(5);
  public static final Duration DEFAULT_MCP_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_ATTACH_WINDOW = Duration.ofHours(1);
  public static final String DEFAULT_HELPER_PATH = "onceport-run";
  /** The placeholder every template may use besides the input_schema properties. */
  public static final String EXECUTION_ID = Templates.EXECUTION_ID;

  private final ContractVariables variables;

  /** A loader expanding {@code ${NAME}} from the process environment. */
  public ContractLoader() {
    this(ContractVariables.fromEnvironment());
  }

  /** A loader expanding {@code ${NAME}} from {@code variables} ({@code --set} over the environment). */
  public ContractLoader(ContractVariables variables) {
    this.variables = Objects.requireNonNull(variables, "variables == null");
  }

  /**
   * Loads every {@code *.yaml} / {@code *.yml} file directly in {@code dir}. File names in
   * messages are {@code dir.resolve(name)} as given, e.g. {@code contracts/create_release.yaml}.
   *
   * @throws ContractLoadException with every error found, if any file does not load
   */
  public ContractSet load(Path dir) throws ContractLoadException {
    if (!Files.isDirectory(dir)) {
      throw new ContractLoadException(List.of(dir + ": not a directory"));
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files =
          s.filter(p -> p.getFileName().toString().endsWith(".yaml") || p.getFileName().toString().endsWith(".yml"))
              .filter(Files::isRegularFile)
              .sorted()
              .collect(Collectors.toList());
    } catch (IOException e) {
      throw new ContractLoadException(List.of(dir + ": cannot list: " + e.getMessage()));
    }
    List<String> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Map<String, Path> seen = new HashMap<>();
    List<ToolContract> contracts = new ArrayList<>();
    if (files.isEmpty()) {
      warnings.add(dir + ": no contracts (*.yaml) found");
    }
    for (Path file : files) {
      FileResult r = loadFile(file);
      errors.addAll(r.errors);
      warnings.addAll(r.warnings);
      if (r.contract != null) {
        Path first = seen.putIfAbsent(r.contract.tool(), file);
        if (first != null) {
          errors.add(
              file + ":" + r.toolLine + ": tool: duplicate tool name '" + r.contract.tool() + "' (also defined in "
                  + first + ")");
        } else {
          contracts.add(r.contract);
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new ContractLoadException(errors);
    }
    return new ContractSet(contracts, warnings);
  }

  /** Result of one file: the contract (null when it has errors), its errors and warnings. */
  static final class FileResult {
    ToolContract contract;
    int toolLine = 1;
    final List<String> errors = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
  }

  /**
   * One file through the pipeline: YAML with variables expanded, the contract schema, Jackson
   * binding, the cross-field rules, then the contract. The schema's errors do not stop the rules
   * (they skip what the schema refused), so a file's mistakes are reported together.
   */
  FileResult loadFile(Path file) {
    FileResult r = new FileResult();
    YamlTree tree = parse(file, r);
    if (tree == null) {
      return r;
    }
    ObjectNode root = (ObjectNode) tree.root;
    dropEmptyFields(root);
    Problems problems = new Problems(file, tree);
    List<ContractSchema.Violation> violations = ContractSchema.get().validate(root);
    violations.forEach(v -> problems.error(v.path(), v.message()));
    ContractFile.Bound bound = null;
    try {
      bound = ContractFile.Bound.of(root, pruned(root, violations));
    } catch (ContractFile.BindingException e) {
      problems.error(e.path, "cannot be read: " + e.getMessage());
    }
    if (bound != null) {
      ContractRules.check(problems, bound);
    }
    if (bound != null && problems.errorCount() == 0) {
      try {
        r.contract = ContractAssembler.build(bound);
      } catch (IllegalArgumentException | NullPointerException e) {
        // The record constructors guard what the schema and the rules missed; report it rather than crash.
        problems.fileError(e.getMessage());
      }
    }
    r.toolLine = tree.lineOf("tool");
    r.errors.addAll(problems.errors());
    r.warnings.addAll(problems.warnings());
    if (!r.errors.isEmpty()) {
      r.contract = null;
    }
    return r;
  }

  /** The file as a tree whose root is a mapping, or null with the reason in {@code r}. */
  private YamlTree parse(Path file, FileResult r) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      r.errors.add(file + ":1: cannot read: " + e.getMessage());
      return null;
    }
    YamlTree tree;
    try {
      tree = YamlTree.parse(text, variables);
    } catch (YamlTree.SyntaxException e) {
      r.errors.add(file + ":" + e.line + ": " + e.getMessage());
      return null;
    }
    if (!tree.variableProblems.isEmpty()) {
      // The unexpanded text would only add follow-up errors (a URL "${X}/v1" is no URL).
      tree.variableProblems.forEach(problem -> r.errors.add(file + ":" + problem));
      return null;
    }
    if (tree.root == null || !tree.root.isObject()) {
      r.errors.add(file + ":1: expected a mapping with the fields tool, description, input_schema, channel, replay");
      return null;
    }
    return tree;
  }

  /**
   * Removes the fields the schema declares that are set to null (YAML {@code key: null} or {@code
   * key: ~}) at the top level, in the sections and in {@code replay.status}: there null means
   * "absent", as the loader always read it. An unknown field stays (and is refused), and
   * templates, schemas and maps keep their nulls: a null there is data.
   */
  private static void dropEmptyFields(ObjectNode root) {
    ContractSchema schema = ContractSchema.get();
    for (String section : ContractSchema.sections()) {
      JsonNode node = section.isEmpty() ? root : SchemaMessages.at(root, List.of((Object[]) section.split("\\.")));
      if (node instanceof ObjectNode fields) {
        Set<String> known = schema.fields(section);
        fields.properties().removeIf(e -> e.getValue().isNull() && known.contains(e.getKey()));
      }
    }
  }

  /**
   * A copy of {@code root} with what the schema refused taken out: unknown fields removed,
   * invalid values nulled. Binding it cannot fail on a value the schema already reported.
   */
  private static ObjectNode pruned(ObjectNode root, List<ContractSchema.Violation> violations) {
    ObjectNode copy = root.deepCopy();
    for (ContractSchema.Violation v : violations) {
      List<Object> at = v.location();
      if (v.prune() == ContractSchema.Prune.NONE || at.isEmpty()) {
        continue;
      }
      JsonNode parent = SchemaMessages.at(copy, at.subList(0, at.size() - 1));
      Object last = at.get(at.size() - 1);
      if (parent instanceof ObjectNode object && v.prune() == ContractSchema.Prune.REMOVE) {
        object.remove(last.toString());
      } else if (parent instanceof ObjectNode object) {
        object.putNull(last.toString());
      } else if (parent instanceof ArrayNode array && last instanceof Integer index && index < array.size()) {
        array.set(index, NullNode.getInstance());
      }
    }
    return copy;
  }
}
