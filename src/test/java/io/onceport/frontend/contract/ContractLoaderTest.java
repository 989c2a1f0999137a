package io.onceport.frontend.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ToolContract;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ContractLoaderTest {
  private static final Path VALID = Path.of("src/test/resources/contracts-valid");
  private static final Path BROKEN = Path.of("src/test/resources/contracts-broken");
  private static final String SCHEMA = "input_schema:\n  type: object\n  properties:\n    version: {type: string}\n";

  @TempDir Path tmp;

  @Test
  void validContractLoadsEveryField() throws Exception {
    ContractSet set = new ContractLoader().load(VALID);
    assertEquals(List.of(), set.warnings());
    assertEquals(1, set.size());
    ToolContract c = set.find("create_release").orElseThrow();
    assertEquals("create_release", c.tool());
    assertEquals("Deploy a release of a service.", c.description());
    assertEquals(ToolContract.Channel.HTTP, c.channel());
    assertEquals("POST", c.http().method());
    assertEquals("http://127.0.0.1:8766/v1/releases/{{service}}", c.http().url());
    assertEquals("{\"service\":\"{{service}}\",\"version\":\"{{version}}\",\"region\":\"{{region}}\"}", c.http().body());
    assertEquals("Idempotency-Key", c.http().idempotencyHeader());
    assertEquals("releases-api", c.http().credential());
    assertEquals(30_000, c.http().timeoutMillis());
    assertEquals(ReplayClass.STATUS_QUERY, c.replayClass());
    assertEquals(Duration.ofHours(2), c.replay().attachWindow());
    assertEquals("GET", c.replay().status().method());
    assertEquals("http://127.0.0.1:8766/v1/releases/by-key/{{execution_id}}", c.replay().status().url());
    assertEquals(List.of(200), c.replay().status().completedWhen());
    assertEquals(List.of(404), c.replay().status().notExecutedWhen());
    assertEquals(List.of("note"), c.fingerprintIgnore());
    assertEquals(List.of("api_token"), c.fingerprintSecret());
    assertTrue(c.inputSchema().contains("\"region\":{\"type\":\"string\",\"default\":\"us-east-1\"}"), c.inputSchema());
    assertEquals(null, c.outputSchema());
    assertTrue(set.find("nope").isEmpty());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiterString = "=>", textBlock = """
      bad_class.yaml => 9: replay.class: 'at_most_once' is not a replay class (expected read_only, idempotency_key, status_query or irreversible)
      bad_name.yaml => 1: tool: 'create release' is not a valid tool name (1-64 of a-z A-Z 0-9 _ -)
      bad_placeholder.yaml => 9: http.url: placeholder {{servce}} is not a property of input_schema (nor execution_id)
      bad_placeholder.yaml => 10: http.body.note: placeholder {{nte}} is not a property of input_schema (nor execution_id)
      bad_window.yaml => 10: replay.attach_window: '1h' is not an ISO-8601 duration (e.g. PT30S, PT1H)
      invalid_schema.yaml => 5: input_schema.properties.region.type: not a valid JSON Schema (draft 2020-12): does not have a value in the enumeration ["array", "boolean", "integer", "null", "number", "object", "string"]
      missing_idempotency_header.yaml => 5: http.idempotency_header: required for class idempotency_key (the header that carries the execution id)
      missing_status.yaml => 11: replay.status: required for class status_query
      no_replay.yaml => 1: replay: required (class: read_only | idempotency_key | status_query | irreversible)
      reserved.yaml => 1: tool: 'onceport_execution_status' is reserved for the built-in status tool
      schema_not_object.yaml => 3: input_schema.type: must be object (tool arguments are a JSON object)
      ssh_missing.yaml => 7: ssh.host_key: required (the pinned host key, e.g. SHA256:...; an unknown key is never accepted)
      ssh_missing.yaml => 7: ssh.credential: required (a vault reference), or key_file for development
      syntax_error.yaml => 4: YAML syntax error: mapping values are not allowed here
      typo_field.yaml => 13: fingerprnt: unknown field (did you mean 'fingerprint'?); known: tool, description, input_schema, output_schema, channel, http, ssh, replay, fingerprint, result, mcp
      unknown_keyword.yaml => 5: input_schema.properties.service.e.g. checkout: unknown JSON Schema keyword 'e.g. checkout' (a comma in an unquoted flow-mapping value starts a new key: quote the text, e.g. description: "…, e.g. …")
      """)
  void brokenContractIsRefusedWithFileLineAndField(String file, String error) {
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(BROKEN));
    assertTrue(e.errors().contains(BROKEN.resolve(file) + ":" + error),
        "expected " + file + ":" + error + " in\n" + e.getMessage());
  }

  @Test
  void everyBrokenFileReportsExactlyTheExpectedErrors() {
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(BROKEN));
    // One line per case in the table above: no file produces extra, unexpected errors.
    assertEquals(16, e.errors().size(), e.getMessage());
    assertEquals(e.getMessage(), String.join("\n", e.errors()));
  }

  @Test
  void duplicateToolNameNamesBothFiles() throws Exception {
    String contract = "tool: same\n" + SCHEMA + "channel: http\nhttp: {method: GET, url: 'http://h/x'}\n"
        + "replay: {class: read_only}\n";
    write("a.yaml", contract);
    write("b.yaml", contract);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("b.yaml") + ":1: tool: duplicate tool name 'same' (also defined in "
        + tmp.resolve("a.yaml") + ")"), e.errors());
  }

  @Test
  void sshToolWithoutMarkerIsForcedIrreversibleWithAWarning() throws Exception {
    write("migrate.yaml", "tool: migrate\n" + SCHEMA + """
        channel: ssh
        ssh:
          host: 127.0.0.1
          port: 2222
          user: deploy
          host_key: "SHA256:abc"
          key_file: /tmp/id_ed25519
          command: ["/opt/app/bin/migrate", "--to", "{{version}}"]
          working_dir: /opt/app
        replay:
          class: status_query
        """);
    ContractSet set = new ContractLoader().load(tmp);
    ToolContract c = set.find("migrate").orElseThrow();
    assertEquals(ReplayClass.IRREVERSIBLE, c.replayClass());
    assertEquals(List.of(tmp.resolve("migrate.yaml") + ":7: ssh.marker: not true: replay class forced to "
        + "irreversible (contract says status_query); set marker: true and install the helper to allow status "
        + "queries"), set.warnings());
    assertEquals(List.of("/opt/app/bin/migrate", "--to", "{{version}}"), c.ssh().command());
    assertEquals(2222, c.ssh().port());
    assertEquals("/tmp/id_ed25519", c.ssh().keyFile());
    assertEquals(null, c.ssh().credential());
    assertEquals("/opt/app", c.ssh().workingDir());
    assertEquals(false, c.ssh().marker());
    assertEquals("onceport-run", c.ssh().helperPath());
    assertEquals(Duration.ofMinutes(5).toMillis(), c.ssh().timeoutMillis());
    assertEquals(null, c.replay().status());
  }

  @Test
  void sshToolWithMarkerKeepsStatusQueryWithoutAStatusSection() throws Exception {
    write("migrate.yaml", "tool: migrate\n" + SCHEMA + """
        channel: ssh
        ssh: {host: db1, user: deploy, host_key: "SHA256:abc", credential: deploy-ssh, marker: true,
              command: [migrate, "{{version}}"], helper_path: /usr/local/bin/onceport-run,
              state_dir: /var/lib/onceport, timeout: PT10M}
        replay: {class: status_query}
        """);
    ContractSet set = new ContractLoader().load(tmp);
    ToolContract c = set.find("migrate").orElseThrow();
    assertEquals(List.of(), set.warnings());
    assertEquals(ReplayClass.STATUS_QUERY, c.replayClass());
    assertEquals(22, c.ssh().port());
    assertEquals("deploy-ssh", c.credentialRef());
    assertEquals("/usr/local/bin/onceport-run", c.ssh().helperPath());
    assertEquals("/var/lib/onceport", c.ssh().stateDir());
    assertEquals(600_000, c.ssh().timeoutMillis());
    assertEquals(Duration.ofHours(1), c.replay().attachWindow());
  }

  @Test
  void unknownNestedFieldIsRefusedWithAHint() throws Exception {
    write("t.yaml", "tool: t\n" + SCHEMA + """
        channel: http
        http: {method: POST, url: 'http://h/x'}
        replay:
          class: status_query
          status:
            method: GET
            url: http://h/x/{{execution_id}}
            completed_when: [200]
            not_executed: [404]
        """);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(
        tmp.resolve("t.yaml") + ":14: replay.status.not_executed: unknown field (did you mean 'not_executed_when'?); "
            + "known: method, url, completed_when, not_executed_when, settle"),
        e.errors());
  }

  @Test
  void statusSettleDefaultsToTheHttpTimeoutAndIsValidated() throws Exception {
    String contract = "tool: t\n" + SCHEMA + """
        channel: http
        http: {method: POST, url: 'http://h/x', timeout: PT7S}
        replay:
          class: status_query
          status:
            method: GET
            url: http://h/x/{{execution_id}}
            completed_when: [200]
            not_executed_when: [404]
        """;
    write("t.yaml", contract);
    ToolContract plain = new ContractLoader().load(tmp).find("t").orElseThrow();
    assertEquals(null, plain.replay().status().settle());
    assertEquals(7_000, plain.settleMillis());

    write("t.yaml", contract + "    settle: PT2M\n");
    ToolContract settled = new ContractLoader().load(tmp).find("t").orElseThrow();
    assertEquals(Duration.ofMinutes(2), settled.replay().status().settle());
    assertEquals(120_000, settled.settleMillis());

    write("t.yaml", contract + "    settle: two minutes\n");
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("t.yaml") + ":15: replay.status.settle: 'two minutes' is not an ISO-8601 duration (e.g. PT30S, PT2M)"),
        e.errors());

    write("t.yaml", contract + "    settle: -PT1S\n");
    e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("t.yaml") + ":15: replay.status.settle: '-PT1S' is negative (settle is zero or more)"), e.errors());
  }

  @Test
  void statusSectionOnAnotherClassIsAWarningAndOutputSchemaIsKept() throws Exception {
    write("t.yaml", "tool: t\n" + SCHEMA + """
        output_schema: {type: object}
        channel: http
        http: {method: post, url: 'https://h:8443/x', timeout: PT5S, headers: {X-Env: prod}}
        replay:
          class: irreversible
          status: {method: GET, url: 'http://h/s/{{execution_id}}', completed_when: [200], not_executed_when: []}
        """);
    ContractSet set = new ContractLoader().load(tmp);
    ToolContract c = set.find("t").orElseThrow();
    assertEquals(List.of(tmp.resolve("t.yaml") + ":11: replay.status: ignored for class irreversible (only "
        + "status_query uses it)"), set.warnings());
    assertEquals("POST", c.http().method());
    assertEquals(5_000, c.http().timeoutMillis());
    assertEquals("prod", c.http().headers().get("X-Env"));
    assertEquals("{\"type\":\"object\"}", c.outputSchema());
    assertEquals(null, c.http().body());
  }

  @Test
  void remoteSchemaReferenceIsNotFetchedAndRefusedAtLoad() throws Exception {
    write("t.yaml", """
        tool: t
        input_schema:
          type: object
          properties:
            x: {$ref: "http://127.0.0.1:9/never.json"}
        channel: http
        http: {method: GET, url: 'http://h/x'}
        replay: {class: read_only}
        """);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(1, e.errors().size(), e.getMessage());
    assertTrue(e.errors().get(0).startsWith(tmp.resolve("t.yaml") + ":2: input_schema: cannot be compiled: "),
        e.getMessage());
  }

  @Test
  void httpSectionOnAnSshToolIsRefused() throws Exception {
    write("t.yaml", "tool: t\n" + SCHEMA + """
        channel: ssh
        ssh: {host: h, user: u, host_key: k, credential: c, marker: true, command: [ls]}
        http: {method: GET, url: 'http://h/x'}
        replay: {class: read_only}
        """);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("t.yaml") + ":8: http: not allowed with channel ssh"), e.errors());
  }

  @Test
  void contractsAreOrderedByToolNameWhateverTheFileNames() throws Exception {
    for (String[] f : new String[][] {{"1.yaml", "zeta"}, {"2.yml", "alpha"}, {"3.yaml", "mid"}}) {
      write(f[0], "tool: " + f[1] + "\n" + SCHEMA + "channel: http\nhttp: {method: GET, url: 'http://h/x'}\n"
          + "replay: {class: read_only}\n");
    }
    write("notes.txt", "not a contract");
    List<String> names = new ContractLoader().load(tmp).contracts().stream().map(ToolContract::tool)
        .collect(Collectors.toList());
    assertEquals(List.of("alpha", "mid", "zeta"), names);
  }

  @Test
  void missingDirectoryIsAnErrorAndEmptyOneAWarning() throws Exception {
    ContractLoadException e = assertThrows(ContractLoadException.class,
        () -> new ContractLoader().load(tmp.resolve("nope")));
    assertEquals(List.of(tmp.resolve("nope") + ": not a directory"), e.errors());
    assertEquals(List.of(tmp + ": no contracts (*.yaml) found"), new ContractLoader().load(tmp).warnings());
  }

  @Test
  void shippedContractsLoadWithDescriptionsIntactAndNoLibraryWarning() throws Exception {
    ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
        org.slf4j.Logger.ROOT_LOGGER_NAME);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen = new ch.qos.logback.core.read.ListAppender<>();
    seen.start();
    root.addAppender(seen);
    try {
      ContractSet set = new ContractLoader(ContractVariables.of(java.util.Map.of(), java.util.Map.of())).load(Path.of("contracts"));
      assertEquals(List.of(), set.warnings());
      for (ToolContract c : set.contracts()) {
        try { // compiles the schema as the first call does (where the library warned about stray keywords)
          new io.onceport.frontend.fingerprint.ArgumentValidator().validate(c, new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode());
        } catch (io.onceport.frontend.fingerprint.InvalidArgumentsException expected) {
          // required arguments are missing: not what this test is about
        }
      }
    } finally {
      root.detachAppender(seen);
    }
    assertEquals(List.of(), seen.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
        .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).toList());
    ToolContract release = new ContractLoader(ContractVariables.of(java.util.Map.of(), java.util.Map.of()))
        .load(Path.of("contracts")).find("create_release").orElseThrow();
    com.fasterxml.jackson.databind.JsonNode service = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(release.inputSchema()).at("/properties/service");
    assertEquals("{\"type\":\"string\",\"description\":\"Service to deploy, e.g. checkout\"}", service.toString());
  }

  @Test
  void unknownSchemaKeywordsAreRefusedAtEveryDepthWithHints() throws Exception {
    write("t.yaml", """
        tool: t
        input_schema:
          type: object
          requierd: [a]
          properties:
            "a b": {type: string}
            list:
              type: array
              items: {type: string, maxLenght: 3}
            pick:
              anyOf:
                - {type: string}
                - {type: integer, definitions: {}}
          $defs:
            x: {type: object, propertys: {}}
        channel: http
        http: {method: GET, url: 'http://h/x'}
        replay: {class: read_only}
        """);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    String f = tmp.resolve("t.yaml") + ":";
    assertEquals(List.of(
        f + "4: input_schema.requierd: unknown JSON Schema keyword 'requierd' (did you mean 'required'?)",
        f + "9: input_schema.properties.list.items.maxLenght: unknown JSON Schema keyword 'maxLenght' (did you mean 'maxLength'?)",
        f + "13: input_schema.properties.pick.anyOf[1].definitions: 'definitions' is not a JSON Schema 2020-12 keyword; use $defs",
        f + "15: input_schema.$defs.x.propertys: unknown JSON Schema keyword 'propertys' (did you mean 'properties'?)"),
        e.errors());
  }

  @Test
  void executionIdPlaceholderIsAcceptedInEveryTemplateButTheDispatchUrl() throws Exception {
    write("h.yaml", "tool: h\n" + SCHEMA + """
        channel: http
        http:
          method: POST
          url: 'http://h/x/{{version}}'
          headers: {X-Run: "{{execution_id}}"}
          body: {id: "{{execution_id}}", version: "{{version}}"}
          idempotency_header: Idempotency-Key
        replay: {class: idempotency_key}
        """);
    write("s.yaml", "tool: s\n" + SCHEMA + """
        channel: ssh
        ssh: {host: h, user: u, host_key: "SHA256:k", credential: c, marker: true,
              command: [migrate, --to, "{{version}}", --run-id, "{{execution_id}}"]}
        replay: {class: status_query}
        """);
    ContractSet set = new ContractLoader().load(tmp);
    assertEquals(List.of("migrate", "--to", "{{version}}", "--run-id", "{{execution_id}}"), set.find("s").orElseThrow().ssh().command());
    assertEquals("{\"X-Run\":\"{{execution_id}}\"}", new com.fasterxml.jackson.databind.ObjectMapper()
        .writeValueAsString(set.find("h").orElseThrow().http().headers()));
    Files.writeString(tmp.resolve("h.yaml"), Files.readString(tmp.resolve("h.yaml")).replace("x/{{version}}", "x/{{execution_id}}"));
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("h.yaml") + ":9: http.url: {{execution_id}} cannot be part of the dispatch URL: the "
        + "URL is the fingerprint's target, computed before the execution exists; send it in a header, the body or "
        + "idempotency_header"), e.errors());
  }

  @Test
  void aCredentialGoesToAnArgumentChosenHostOnlyWhenTheContractSaysDynamicHost() throws Exception {
    String schema = "input_schema:\n  type: object\n  properties:\n    host: {type: string}\n    port: {type: string}\n";
    write("h.yaml", "tool: h\n" + schema + """
        channel: http
        http:
          method: POST
          url: 'https://{{host}}/v1/releases'
          credential: deploy-api
        replay: {class: irreversible}
        """);
    write("p.yaml", "tool: p\n" + schema + """
        channel: http
        http:
          method: POST
          url: 'https://api.example.com{{host}}/v1'
          credential: deploy-api
        replay:
          class: status_query
          status: {method: GET, url: 'https://api.example.com:{{port}}/v1/{{execution_id}}', completed_when: [200], not_executed_when: [404]}
        """);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    String refusal = ": the URL's host comes from an argument and the request carries credential deploy-api: the agent "
        + "would choose where the credential goes. Put the host in the contract, or say dynamic_host: true if every "
        + "host an agent may name is meant to get it";
    assertEquals(List.of(
        tmp.resolve("h.yaml") + ":10: http.url" + refusal,
        tmp.resolve("p.yaml") + ":10: http.url" + refusal,
        tmp.resolve("p.yaml") + ":14: replay.status.url" + refusal), e.errors());

    Files.writeString(tmp.resolve("h.yaml"), Files.readString(tmp.resolve("h.yaml")).replace("credential: deploy-api",
        "credential: deploy-api\n  dynamic_host: true"));
    Files.writeString(tmp.resolve("p.yaml"), Files.readString(tmp.resolve("p.yaml")).replace("credential: deploy-api",
        "credential: deploy-api\n  dynamic_host: true"));
    ContractSet set = new ContractLoader().load(tmp);
    assertEquals("https://{{host}}/v1/releases", set.find("h").orElseThrow().http().url());
    assertEquals(List.of(), set.warnings());

    // Without a credential nothing secret travels: the host may come from an argument as before.
    write("h.yaml", "tool: h\n" + schema + "channel: http\nhttp: {method: GET, url: 'https://{{host}}/x'}\n"
        + "replay: {class: read_only}\n");
    write("p.yaml", "tool: p\n" + schema + "channel: http\nhttp: {method: GET, url: 'https://h/x', credential: c, "
        + "dynamic_host: true}\nreplay: {class: read_only}\n");
    set = new ContractLoader().load(tmp);
    assertEquals(List.of(tmp.resolve("p.yaml") + ":8: http.dynamic_host: has no effect: no URL of this contract takes "
        + "its host from an argument"), set.warnings());
  }

  @Test
  void variablesComeFromSetThenTheEnvironmentThenTheDefault() throws Exception {
    write("t.yaml", "tool: t\n" + SCHEMA + """
        description: "costs $${PRICE} on ${HOST}"
        channel: http
        http:
          method: GET
          url: ${TARGET:-http://127.0.0.1:8766}/v1/${PATH_PART}
          headers: {X-Env: "${ENV_NAME:-dev}"}
        replay: {class: read_only}
        """);
    ContractVariables vars = ContractVariables.of(java.util.Map.of("PATH_PART", "from-env", "HOST", "h1", "ENV_NAME", ""),
        java.util.Map.of("TARGET", "http://10.0.0.5:9000", "HOST", "h2"));
    ToolContract c = new ContractLoader(vars).load(tmp).find("t").orElseThrow();
    assertEquals("http://10.0.0.5:9000/v1/from-env", c.http().url());
    assertEquals("costs ${PRICE} on h2", c.description());
    assertEquals("dev", c.http().headers().get("X-Env"), "an empty variable takes the :- default, as in a shell");
    ToolContract d = new ContractLoader(ContractVariables.of(java.util.Map.of("PATH_PART", "p", "HOST", "h"), java.util.Map.of()))
        .load(tmp).find("t").orElseThrow();
    assertEquals("http://127.0.0.1:8766/v1/p", d.http().url());
  }

  @Test
  void anUndefinedVariableNamesFileLineFieldAndVariable() throws Exception {
    write("t.yaml", "tool: t\n" + SCHEMA + """
        channel: ssh
        ssh: {host: "${SSH_HOST}", port: "${SSH_PORT}", user: u, host_key: "SHA256:k", credential: c, marker: true,
              command: [ls, "${BAD NAME}"]}
        replay: {class: status_query}
        """);
    ContractLoadException e = assertThrows(ContractLoadException.class,
        () -> new ContractLoader(ContractVariables.of(java.util.Map.of("SSH_PORT", "2222"), java.util.Map.of())).load(tmp));
    String f = tmp.resolve("t.yaml") + ":";
    assertEquals(List.of(
        f + "7: ssh.host: undefined variable ${SSH_HOST}: set it in the environment or with --set SSH_HOST=VALUE "
            + "(or give a default: ${SSH_HOST:-VALUE})",
        f + "8: ssh.command[1]: invalid variable reference '${BAD NAME}' (write ${NAME} or ${NAME:-default}, or $${ for a literal ${)"),
        e.errors());
    ToolContract c = new ContractLoader(ContractVariables.of(java.util.Map.of("SSH_PORT", "2222", "SSH_HOST", "db1"), java.util.Map.of()))
        .load(writeFixed(tmp)).find("t").orElseThrow();
    assertEquals("db1", c.ssh().host());
    assertEquals(2222, c.ssh().port(), "a port from a variable arrives as text and is accepted");
  }

  private static final String HTTP_TOOL = "tool: t\n" + SCHEMA + "channel: http\nhttp:\n  method: POST\n  url: http://h/x\n";
  private static final String SSH_TOOL = "tool: t\n" + SCHEMA + "channel: ssh\nreplay: {class: irreversible}\nssh:\n  host: h\n"
      + "  user: u\n  host_key: \"SHA256:k\"\n  credential: c\n";
  private static final String MCP_TOOL = "tool: t\n" + SCHEMA + "channel: mcp\nmcp:\n  url: http://h/mcp\n  tool: x\n";

  static Stream<Arguments> schemaMistakes() {
    String statusQuery = "replay:\n  class: status_query\n  status:\n";
    return Stream.of(
        Arguments.of("tool: 5\n" + SCHEMA + "channel: http\nhttp: {method: GET, url: 'http://h/x'}\nreplay: {class: read_only}\n",
            "1: tool: must be a non-empty string"),
        Arguments.of(HTTP_TOOL.replace("channel: http", "channel: smtp") + "replay: {class: read_only}\n",
            "6: channel: 'smtp' is not http, ssh or mcp"),
        Arguments.of(HTTP_TOOL.replace("method: POST", "method: FETCH") + "replay: {class: read_only}\n",
            "8: http.method: 'FETCH' is not GET, POST, PUT, PATCH or DELETE"),
        Arguments.of(HTTP_TOOL + "  timeout: PT0S\nreplay: {class: read_only}\n", "10: http.timeout: 'PT0S' is not a positive duration"),
        Arguments.of(HTTP_TOOL + "  headers: {X-Tags: [a]}\nreplay: {class: read_only}\n", "10: http.headers.X-Tags: must be a string"),
        Arguments.of(HTTP_TOOL.replace("http:\n  method: POST\n  url: http://h/x\n", "http: 5\n") + "replay: {class: read_only}\n",
            "7: http: must be a mapping"),
        Arguments.of(HTTP_TOOL + statusQuery + "    method: POST\n    url: http://h/s\n    completed_when: [200]\n",
            "13: replay.status.method: 'POST' is not GET or HEAD (a status query must not change anything)"),
        Arguments.of(HTTP_TOOL + statusQuery + "    method: GET\n    url: http://h/s\n    completed_when: []\n",
            "15: replay.status.completed_when: must name at least one HTTP status code"),
        Arguments.of(HTTP_TOOL + statusQuery + "    method: GET\n    url: http://h/s\n    completed_when: 200\n",
            "15: replay.status.completed_when: must be a list of HTTP status codes"),
        Arguments.of(HTTP_TOOL + statusQuery + "    method: GET\n    url: http://h/s\n    completed_when: [200, 700]\n",
            "15: replay.status.completed_when[1]: must be an HTTP status code (100-599)"),
        Arguments.of(HTTP_TOOL + statusQuery + "    method: GET\n    url: http://h/s\n",
            "12: replay.status.completed_when: required (a list of HTTP status codes, e.g. [200])"),
        Arguments.of(HTTP_TOOL + "replay: {class: read_only}\nresult: {format: html}\n", "11: result.format: 'html' is not text or mcp_content"),
        Arguments.of(HTTP_TOOL + "replay: {class: read_only}\nfingerprint: {ignore: version}\n",
            "11: fingerprint.ignore: must be a list of argument names"),
        Arguments.of(SSH_TOOL + "  command: [ls]\n  port: 70000\n", "14: ssh.port: must be a port number 1-65535"),
        Arguments.of(SSH_TOOL + "  command: [ls]\n  marker: \"yes\"\n", "14: ssh.marker: must be true or false"),
        Arguments.of(SSH_TOOL + "  command: []\n", "13: ssh.command: must be a non-empty list of strings (argv)"),
        Arguments.of(SSH_TOOL + "  command: [ls, {a: 1}]\n", "13: ssh.command[1]: must be a string"),
        Arguments.of(MCP_TOOL.replace("  url: http://h/mcp\n", "  command: []\n") + "replay: {class: read_only}\n",
            "8: mcp.command: must be a non-empty list of strings (argv, e.g. [\"node\", \"server.mjs\"])"),
        Arguments.of(MCP_TOOL.replace("  url: http://h/mcp\n", "  command: [node]\n  env: {A: [1]}\n") + "replay: {class: read_only}\n",
            "9: mcp.env.A: must be a string"),
        Arguments.of(MCP_TOOL + statusQuery + "    tool: s\n    field: state\n",
            "12: replay.status.completed_when: required (a list of values of the status field, e.g. [completed])"),
        Arguments.of(MCP_TOOL + statusQuery + "    tool: s\n    arguments: 5\n    field: state\n    completed_when: [done]\n",
            "14: replay.status.arguments: must be a mapping (the status tool's arguments)"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("schemaMistakes")
  void aMistakeTheSchemaStatesIsNamedByLineAndFieldWithTheSchemasMessage(String contract, String error) throws Exception {
    write("t.yaml", contract);
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("t.yaml") + ":" + error), e.errors());
  }

  @Test
  void aKnownFieldSetToNullIsAbsentButAnUnknownOneIsStillRefused() throws Exception {
    write("t.yaml", HTTP_TOOL + "  timeout: null\n  body: ~\nreplay: {class: read_only, attach_window: null}\nfingerprint: null\n");
    ToolContract c = new ContractLoader().load(tmp).find("t").orElseThrow();
    assertEquals(ContractLoader.DEFAULT_HTTP_TIMEOUT.toMillis(), c.http().timeoutMillis());
    assertEquals(null, c.http().body());
    assertEquals(ContractLoader.DEFAULT_ATTACH_WINDOW, c.replay().attachWindow());
    assertEquals(List.of(), c.fingerprintIgnore());

    write("t.yaml", HTTP_TOOL + "  timout: null\nreplay: {class: read_only}\n");
    ContractLoadException e = assertThrows(ContractLoadException.class, () -> new ContractLoader().load(tmp));
    assertEquals(List.of(tmp.resolve("t.yaml") + ":10: http.timout: unknown field (did you mean 'timeout'?); known: method, url, "
        + "body, headers, idempotency_header, credential, dynamic_host, timeout"), e.errors());
  }

  @Test
  void numbersInTemplatesKeepTheTextTheyWereWrittenWith() throws Exception {
    write("t.yaml", HTTP_TOOL + "  body: {price: 200.0, big: 12345678901234567890, exp: 1e3, v: \"{{version}}\"}\n"
        + "replay: {class: read_only}\n");
    ToolContract c = new ContractLoader().load(tmp).find("t").orElseThrow();
    assertEquals("{\"price\":200.0,\"big\":12345678901234567890,\"exp\":1E+3,\"v\":\"{{version}}\"}", c.http().body());
  }

  private Path writeFixed(Path dir) throws IOException {
    Path file = dir.resolve("t.yaml");
    Files.writeString(file, Files.readString(file).replace(", \"${BAD NAME}\"", ""));
    return dir;
  }

  private void write(String name, String text) throws IOException {
    Files.writeString(tmp.resolve(name), text);
  }
}
