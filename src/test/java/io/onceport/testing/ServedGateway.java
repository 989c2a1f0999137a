package io.onceport.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.activity.vault.KdfParameters;
import io.onceport.activity.vault.PassphraseSource;
import io.onceport.activity.vault.Vault;
import io.onceport.activity.vault.VaultService;
import io.onceport.app.Main;
import io.onceport.app.demo.DemoTarget;
import io.onceport.app.engine.EmbeddedEngine;
import io.onceport.app.runtime.FrontendRuntime;
import io.onceport.app.runtime.FrontendSettings;
import io.onceport.app.runtime.WorkerRuntime;
import io.onceport.frontend.auth.AgentRegistry;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.ops.Metrics;
import io.onceport.frontend.temporal.ExecutionDirectory;
import io.onceport.shared.codec.Payloads;
import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.workflow.execution.ExecutionSearchAttributes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The whole gateway as {@code serve} wires it, in one process on loopback, for end-to-end tests that
 * drive it through MCP and the operator's CLI: the demo target recording every request, the chosen
 * shipped contracts pointed at it, an agent registry, operator {@value #OPERATOR} registered with her
 * key on disk, the embedded engine, a connection with the payload-encrypting data converter and the
 * search attributes, a worker, the MCP front end and an {@link ExecutionDirectory}. {@link #cli} runs
 * {@code Main.run} against it as an operator would.
 *
 * <p>Unlike {@link GatewayHarness} (all shipped contracts, automatic session policy, fixed agents),
 * each test says what differs — contracts, session-authorization policy, agents, a vault — through
 * {@link #newBuilder}. {@link #close} stops everything in reverse order and deletes the directory.
 */
public final class ServedGateway implements AutoCloseable {
  /** The registered operator whose key {@link #signed} passes. */
  public static final String OPERATOR = "carol";
  /** The shipped contracts' default target, replaced by the demo target's URL. */
  private static final String SHIPPED_TARGET = "${DEMO_TARGET:-http://127.0.0.1:8766}";
  private static final String MODERN = "2026-07-28";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String taskQueue;
  private final Map<String, String> tokens = new LinkedHashMap<>();
  private Path dir;
  private Path data;
  private Path keys;
  private DemoTarget target;
  private EmbeddedEngine engine;
  private TemporalConnection connection;
  private WorkerRuntime worker;
  private FrontendRuntime frontend;
  private ExecutionDirectory directory;
  private ContractSet tools;

  private ServedGateway(String taskQueue) {
    this.taskQueue = taskQueue;
  }

  /** @param taskQueue the worker's task queue, also the temporary directory's prefix */
  public static Builder newBuilder(String taskQueue) {
    return new Builder(taskQueue);
  }

  /** What one test's gateway needs that another's does not; {@link #start} builds it. */
  public static final class Builder {
    private final String taskQueue;
    private final List<String> shipped = new ArrayList<>();
    private final Map<String, Function<DemoTarget, String>> written = new LinkedHashMap<>();
    private final List<String> agents = new ArrayList<>();
    private UnaryOperator<String> edit = UnaryOperator.identity();
    private String sessionPolicy = "auto";
    private String journalWriter;
    private String vaultPassphrase;
    private VaultSetup vaultSetup;

    private Builder(String taskQueue) {
      this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue == null");
    }

    /** Shipped contracts (file names under {@code contracts/}), pointed at the demo target. */
    public Builder contracts(String... names) {
      shipped.addAll(List.of(names));
      return this;
    }

    /** A further edit of every shipped contract's text (e.g. shorter verification intervals). */
    public Builder editContracts(UnaryOperator<String> edit) {
      this.edit = Objects.requireNonNull(edit, "edit == null");
      return this;
    }

    /** A contract of the test's own: {@code yaml} is given the started demo target. */
    public Builder contract(String fileName, Function<DemoTarget, String> yaml) {
      written.put(fileName, Objects.requireNonNull(yaml, "yaml == null"));
      return this;
    }

    /** The session-authorization policy of worker and front end ({@code auto} unless set). */
    public Builder sessionPolicy(String sessionPolicy) {
      this.sessionPolicy = Objects.requireNonNull(sessionPolicy, "sessionPolicy == null");
      return this;
    }

    /** Agents registered in {@code agents.json}; {@link #token} gives their tokens. */
    public Builder agents(String... names) {
      agents.addAll(List.of(names));
      return this;
    }

    /** The worker's journal writer id (the task queue unless set). */
    public Builder journalWriter(String journalWriter) {
      this.journalWriter = Objects.requireNonNull(journalWriter, "journalWriter == null");
      return this;
    }

    /** A vault under the data directory, unlocked by {@code passphrase}, filled by {@code setup}. */
    public Builder vault(String passphrase, VaultSetup setup) {
      this.vaultPassphrase = Objects.requireNonNull(passphrase, "passphrase == null");
      this.vaultSetup = Objects.requireNonNull(setup, "setup == null");
      return this;
    }

    public ServedGateway start() throws Exception {
      ServedGateway gateway = new ServedGateway(taskQueue);
      try {
        gateway.start(this);
      } catch (Exception | Error e) {
        gateway.close();
        throw e;
      }
      return gateway;
    }
  }

  /** Fills a new vault before the worker opens it. */
  @FunctionalInterface
  public interface VaultSetup {
    void fill(Vault vault) throws Exception;
  }

  private void start(Builder b) throws Exception {
    dir = Files.createTempDirectory(taskQueue);
    data = Files.createDirectories(dir.resolve("data"));
    keys = dir.resolve("operator-keys");
    target = DemoTarget.start("127.0.0.1", 0);
    Path contracts = Files.createDirectories(dir.resolve("contracts"));
    for (String name : b.shipped) {
      Files.writeString(contracts.resolve(name),
          b.edit.apply(Files.readString(Path.of("contracts", name)).replace(SHIPPED_TARGET, target.url())));
    }
    for (Map.Entry<String, Function<DemoTarget, String>> own : b.written.entrySet()) {
      Files.writeString(contracts.resolve(own.getKey()), own.getValue().apply(target));
    }
    tools = new ContractLoader().load(contracts);
    VaultService vault = null;
    if (b.vaultPassphrase != null) {
      try (Vault v = Vault.create(data, b.vaultPassphrase.toCharArray(), KdfParameters.forTests())) {
        b.vaultSetup.fill(v);
      }
      vault = VaultService.open(data, PassphraseSource.fromEnvironment(Map.of(PassphraseSource.ENV, b.vaultPassphrase)));
    }
    AgentRegistry registry = new AgentRegistry(data);
    for (String agent : b.agents) {
      tokens.put(agent, registry.add(agent));
    }
    Operators.register(data, OPERATOR).write(keys.resolve(OPERATOR + ".key"), false);

    engine = EmbeddedEngine.start("127.0.0.1", 0);
    Metrics metrics = new Metrics();
    connection = TemporalConnection.connect(engine.target(), "default", true,
        Payloads.dataConverter(true, data), Duration.ofSeconds(10), metrics.metricsScope());
    connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
    worker = WorkerRuntime.start(connection, taskQueue, data, vault, b.sessionPolicy, Duration.ofMinutes(5),
        b.journalWriter == null ? taskQueue : b.journalWriter);
    frontend = FrontendRuntime.start(connection, taskQueue, data, tools,
        FrontendSettings.loopback(Duration.ofSeconds(2), b.sessionPolicy), metrics);
    directory = new ExecutionDirectory(connection);
  }

  public String taskQueue() {
    return taskQueue;
  }

  public Path data() {
    return data;
  }

  /** Where {@value #OPERATOR}'s key file is ({@code --key-dir}). */
  public Path operatorKeys() {
    return keys;
  }

  /** The contracts the front end serves, as loaded from the copies pointed at the demo target. */
  public ContractSet contracts() {
    return tools;
  }

  public DemoTarget target() {
    return target;
  }

  public EmbeddedEngine engine() {
    return engine;
  }

  public TemporalConnection connection() {
    return connection;
  }

  public FrontendRuntime frontend() {
    return frontend;
  }

  public ExecutionDirectory directory() {
    return directory;
  }

  /** The bearer token of an agent given to {@link Builder#agents}. */
  public String token(String agent) {
    String token = tokens.get(agent);
    if (token == null) {
      throw new IllegalArgumentException("no agent " + agent + " registered; registered: " + tokens.keySet());
    }
    return token;
  }

  /**
   * A 2026-07-28 {@code tools/call} of {@code send_notification} in run {@code runId}, as a nightly
   * job sends it (no MCP session: the run id in {@code _meta} names the agent's session).
   */
  public JsonNode callInRun(String token, int id, String runId, String message) throws Exception {
    ObjectNode body = (ObjectNode) JSON.readTree(McpClient.callBody(id, "send_notification",
        JSON.createObjectNode().put("message", message)));
    ObjectNode meta = ((ObjectNode) body.get("params")).putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", MODERN);
    meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "nightly-job").put("version", "1");
    meta.putObject("io.modelcontextprotocol/clientCapabilities");
    meta.put("onceport/run", runId);
    var response = new McpClient(frontend.port(), token).post(body.toString(),
        "MCP-Protocol-Version", MODERN, "Mcp-Method", "tools/call", "Mcp-Name", "send_notification");
    assertEquals(200, response.statusCode(), response.body());
    return JSON.readTree(response.body());
  }

  /** One run of the CLI: its exit code and what it printed on each stream. */
  public record Run(int exit, String out, String err) {
    public Run {
      Objects.requireNonNull(out, "out == null");
      Objects.requireNonNull(err, "err == null");
    }

    /** Asserts the exit code (the message shows both streams) and returns this run. */
    public Run expect(int expectedExit) {
      assertEquals(expectedExit, exit, out + err);
      return this;
    }
  }

  /** {@code onceport ARGS --temporal … --data …} against this gateway, unsigned. */
  public Run cli(String... args) {
    return run(args, Stream.of());
  }

  /** As {@link #cli}, signing as {@value #OPERATOR} ({@code --key-dir … --operator carol}). */
  public Run signed(String... args) {
    return run(args, Stream.of("--key-dir", keys.toString(), "--operator", OPERATOR));
  }

  /** {@code System.out} and {@code System.err} are the process's: one CLI run at a time. */
  private static synchronized Run run(String[] args, Stream<String> signing, Path data, String temporal) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      String[] all = Stream.of(Stream.of(args), Stream.of("--temporal", temporal, "--data", data.toString()), signing)
          .flatMap(x -> x).toArray(String[]::new);
      int exit = Main.run(all);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  private Run run(String[] args, Stream<String> signing) {
    return run(args, signing, data, engine.target());
  }

  @Override
  public void close() throws Exception {
    if (frontend != null) {
      frontend.close();
    }
    if (worker != null) {
      worker.close();
    }
    if (connection != null) {
      connection.close();
    }
    if (engine != null) {
      engine.close();
    }
    if (target != null) {
      target.close();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
