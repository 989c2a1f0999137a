package io.onceport.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.activity.operator.OperatorActivitiesImpl;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.activity.operator.OperatorRegistry;
import io.onceport.workflow.operator.DecisionBinding;
import io.onceport.workflow.operator.DecisionVerdict;
import io.onceport.workflow.operator.SignedDecision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code onceport operator …} on real files: keys stay with the operator, the registry holds public keys only. */
class OperatorCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = OnceportCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private Path data() {
    return dir.resolve("data");
  }

  private Path keys() {
    return dir.resolve("home/.config/onceport/operators");
  }

  private Run add(String name) {
    return run("operator", "add", name, "--data", data().toString(), "--key-dir", keys().toString());
  }

  @Test
  void addWritesAPrivateKeyForTheOperatorAndRegistersOnlyThePublicKey() throws Exception {
    Run r = add("carol");
    assertEquals(0, r.exit(), r.err());
    Path file = keys().resolve("carol.key");
    OperatorKey key = OperatorKey.load(file);
    assertEquals("operator carol registered in " + data().resolve("operators.json") + " (key " + key.keyId() + ")\n"
        + "private key: " + file + " (0600; keep it with carol: whoever holds it decides as carol)\n", r.out());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data().resolve("operators.json"))));
    String registry = Files.readString(data().resolve("operators.json"));
    assertTrue(registry.contains(key.keyId()), registry);
    String seed = JSON.readTree(Files.readString(file)).get("private_key").asText();
    assertFalse(registry.contains(seed), "the private key never enters the data directory");
    try (var files = Files.walk(data())) {
      assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".key")).toList());
    }
  }

  @Test
  void addRefusesToPutTheKeyInsideTheDataDirectoryOrOverAnExistingKey() throws Exception {
    Files.createDirectories(data());
    Run inData = run("operator", "add", "carol", "--data", data().toString(), "--key-file", data().resolve("keys/carol.key").toString());
    assertEquals(1, inData.exit());
    assertEquals("onceport: refusing to write carol's private key inside the data directory " + data()
        + ": workers read that directory, and an operator key must stay with the operator; use --key-file or --key-dir elsewhere\n", inData.err());
    assertTrue(new OperatorRegistry(data()).operators().isEmpty());

    assertEquals(0, add("carol").exit());
    Run again = add("carol");
    assertEquals(0, again.exit(), again.err());
    assertTrue(again.out().startsWith("operator carol is already registered in " + data().resolve("operators.json")
        + " with the key in " + keys().resolve("carol.key") + " (key ed25519:"), again.out());
    assertTrue(again.out().endsWith("); nothing to do\n"), again.out());
    Run otherName = run("operator", "add", "dave", "--data", data().toString(), "--key-file", keys().resolve("carol.key").toString());
    assertEquals(new Run(1, "", "onceport: " + keys().resolve("carol.key") + " is carol's key, not dave's; choose --key-file for dave\n"),
        otherName);
    assertEquals(List.of("carol"), new OperatorRegistry(data()).operators().stream().map(OperatorRegistry.Operator::name).toList());
  }

  /**
   * A second clone, or a wiped data dir: the operator's key file is still there. add registers it
   * (no loop between "the key exists, use rotate" and "not registered, use add"); rotate says to.
   */
  @Test
  void inASecondCloneAddRegistersTheExistingKeyAndRotateSaysSo() throws Exception {
    assertEquals(0, add("carol").exit());
    String keyId = OperatorKey.load(keys().resolve("carol.key")).keyId();
    Path second = dir.resolve("second-clone/data");
    Run rotate = run("operator", "rotate", "carol", "--data", second.toString(), "--key-dir", keys().toString());
    assertEquals(new Run(1, "", "onceport: no operator carol in " + second.resolve("operators.json") + "; register it with: "
        + "onceport operator add carol (it registers the key you have, " + keys().resolve("carol.key") + ")\n"), rotate);
    Run add = run("operator", "add", "carol", "--data", second.toString(), "--key-dir", keys().toString());
    assertEquals(new Run(0, "operator carol registered in " + second.resolve("operators.json") + " with the existing key "
        + keys().resolve("carol.key") + " (key " + keyId + ")\n", ""), add);
    assertEquals(keyId, new OperatorRegistry(second).find("carol").orElseThrow().keyId());
    assertEquals(keyId, OperatorKey.load(keys().resolve("carol.key")).keyId(), "the key itself is untouched");
  }

  /** Without NAME (and whether or not $USER is set) the operator is the OS user, as for every signing command. */
  @Test
  void addWithoutANameRegistersTheOsUser() throws Exception {
    Run r = run("operator", "add", "--data", data().toString(), "--key-dir", keys().toString());
    String user = System.getenv("ONCEPORT_OPERATOR") != null ? System.getenv("ONCEPORT_OPERATOR") : System.getProperty("user.name");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().startsWith("operator " + user + " registered in "), r.out());
  }

  @Test
  void listRotateAndRemove() throws Exception {
    add("carol");
    add("dave");
    String before = OperatorKey.load(keys().resolve("carol.key")).keyId();
    Run list = run("operator", "list", "--data", data().toString());
    assertEquals(0, list.exit(), list.err());
    assertEquals(2, list.out().lines().count());
    assertTrue(list.out().startsWith("carol                    " + before), list.out());

    Run rotate = run("operator", "rotate", "carol", "--data", data().toString(), "--key-dir", keys().toString());
    assertEquals(0, rotate.exit(), rotate.err());
    String after = OperatorKey.load(keys().resolve("carol.key")).keyId();
    assertFalse(before.equals(after));
    assertEquals("operator carol: new key " + after + " in " + keys().resolve("carol.key") + "; old key " + before
        + " retired (statements signed with it are refused)\n", rotate.out());
    assertEquals(after, new OperatorRegistry(data()).find("carol").orElseThrow().keyId());

    Run remove = run("operator", "remove", "dave", "--data", data().toString());
    assertEquals(new Run(0, "removed dave; statements signed with dave's key are refused from now on\n", ""), remove);
    assertEquals(new Run(1, "", "onceport: no such operator: dave\n"), run("operator", "remove", "dave", "--data", data().toString()));
    assertEquals(new Run(1, "", "onceport: no operator erin in " + data().resolve("operators.json")
        + "; register it with: onceport operator add erin\n"),
        run("operator", "rotate", "erin", "--data", data().toString(), "--key-dir", keys().toString()));
  }

  @Test
  void signPrintsAStatementTheWorkersVerify() throws Exception {
    add("carol");
    String fp = "hmac-sha256:" + "ab".repeat(32);
    Run sign = run("operator", "sign", "approval", "act_01", "--decision", "approve", "--fingerprint", fp, "--reason", "ticket 7",
        "--key-dir", keys().toString(), "--operator", "carol");
    assertEquals(0, sign.exit(), sign.err());
    JsonNode json = JSON.readTree(sign.out());
    assertEquals(List.of("statement", "signature"), names(json.fieldNames()));
    SignedDecision signed = new SignedDecision(json.get("statement").asText(), json.get("signature").asText());
    DecisionVerdict v = new OperatorActivitiesImpl(new OperatorRegistry(data())).verify(signed,
        new DecisionBinding("approval", "act_01", fp, List.of("approve", "deny"), Instant.now().toEpochMilli()));
    assertTrue(v.valid(), v.refusal());
    assertEquals("carol", v.operator());
    assertEquals("ticket 7", v.reason());
    assertTrue(sign.err().startsWith("signed by carol (ed25519:"), sign.err());

    Run session = run("operator", "sign", "session", "mcp:alice/5f1c", "--decision", "authorize", "--key-file",
        keys().resolve("carol.key").toString(), "--expires", "PT1M");
    assertEquals(0, session.exit(), session.err());
    assertFalse(session.out().contains("fingerprint"));
    String statement = JSON.readTree(session.out()).get("statement").asText();
    assertTrue(statement.contains("\"actor\":\"alice\""), "a session statement names the session's actor: " + statement);
    assertTrue(session.err().contains("(actor alice)"), session.err());
    // A session id of the form used before names no actor: the operator says whose it is.
    Run legacy = run("operator", "sign", "session", "mcp:5f1c", "--decision", "authorize", "--key-file",
        keys().resolve("carol.key").toString());
    assertEquals(new Run(1, "", "onceport: the session id mcp:5f1c does not name its actor (a session from before ids did); "
        + "pass --actor ACTOR\n"), legacy);
    assertEquals(0, run("operator", "sign", "session", "mcp:5f1c", "--actor", "alice", "--decision", "authorize", "--key-file",
        keys().resolve("carol.key").toString()).exit());
    assertEquals(new Run(1, "", "onceport: --actor bob is not the actor of session mcp:alice/5f1c, which is alice\n"),
        run("operator", "sign", "session", "mcp:alice/5f1c", "--actor", "bob", "--decision", "authorize", "--key-file",
            keys().resolve("carol.key").toString()));
  }

  @Test
  void signRefusesBadInputWithAClearLine() throws Exception {
    add("carol");
    String k = keys().toString();
    assertEquals(new Run(1, "", "onceport: --decision for a approval must be one of approve, deny, not 'redispatch'\n"),
        run("operator", "sign", "approval", "act_01", "--decision", "redispatch", "--fingerprint", "x", "--key-dir", k, "--operator", "carol"));
    assertEquals(new Run(1, "", "onceport: Invalid decision kind: vote (expected approval, resolution, session or verification)\n"),
        run("operator", "sign", "vote", "act_01", "--decision", "approve", "--key-dir", k, "--operator", "carol"));
    assertEquals(new Run(1, "", "onceport: --reason must not be empty for a denial\n"),
        run("operator", "sign", "session", "mcp:a/1", "--decision", "deny", "--key-dir", k, "--operator", "carol"));
    assertEquals(new Run(1, "", "onceport: --expires must be at most PT24H (a decision is for now, not a standing grant)\n"),
        run("operator", "sign", "session", "mcp:a/1", "--decision", "authorize", "--key-dir", k, "--operator", "carol", "--expires", "P2D"));
  }

  @Test
  void withoutAnOperatorKeyDecisionsAreRefusedBeforeAnythingIsSent() {
    String missing = keys().resolve("nobody.key").toString();
    String expected = "onceport: no operator key for nobody (looked for " + missing + "): decisions are signed with an operator key; "
        + "create one with `onceport operator add nobody`, or pass --operator NAME, --key-file FILE or set ONCEPORT_OPERATOR_KEY\n";
    // No Temporal listens on port 1: the key is checked first, so the error is about the key.
    for (String[] args : List.of(
        new String[] {"approve", "act_01", "--yes"},
        new String[] {"deny", "act_01", "--yes", "--reason", "no"},
        new String[] {"executions", "resolve", "act_01", "--completed", "--reason", "seen"},
        new String[] {"sessions", "authorize", "mcp:1", "--yes"},
        new String[] {"sessions", "deny", "mcp:1", "--yes", "--reason", "no"})) {
      String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
          java.util.stream.Stream.of("--operator", "nobody", "--key-dir", keys().toString(), "--temporal", "127.0.0.1:1")).toArray(String[]::new);
      assertEquals(new Run(1, "", expected), run(all), String.join(" ", args));
    }
  }

  @Test
  void theCodecTokenIsTheOneTheRegistryAccepts() throws Exception {
    add("carol");
    Run token = run("operator", "codec-token", "--key-dir", keys().toString(), "--operator", "carol");
    assertEquals(0, token.exit(), token.err());
    assertTrue(token.out().startsWith("oct_"), token.out());
    assertEquals("carol", new OperatorRegistry(data()).authenticateCodecToken(token.out().strip()).orElseThrow());
  }

  @Test
  void keygenOnTheOperatorsMachineAndAddWithThePublicKeyNeverMoveThePrivateKey() throws Exception {
    Path operatorKeys = dir.resolve("carols-laptop/.config/onceport/operators");
    Run keygen = run("operator", "keygen", "carol", "--key-dir", operatorKeys.toString());
    assertEquals(0, keygen.exit(), keygen.err());
    String line = keygen.out().strip();
    assertTrue(line.startsWith("opk1:"), line);
    OperatorKey key = OperatorKey.load(operatorKeys.resolve("carol.key"));
    assertTrue(keygen.err().contains("onceport operator add carol --public-key " + line), keygen.err());
    String seed = JSON.readTree(Files.readString(operatorKeys.resolve("carol.key"))).get("private_key").asText();
    assertFalse(line.contains(seed));

    Run add = run("operator", "add", "carol", "--data", data().toString(), "--public-key", line);
    assertEquals(new Run(0, "operator carol registered in " + data().resolve("operators.json") + " (key " + key.keyId() + ")\n", ""), add);
    assertEquals("carol", new OperatorRegistry(data()).authenticateCodecToken(key.codecToken()).orElseThrow());
    assertEquals(new Run(1, "", "onceport: --public-key is carol's registration, not dave's\n"),
        run("operator", "add", "dave", "--data", data().toString(), "--public-key", line));
    assertEquals(new Run(1, "", "onceport: --public-key: not an operator registration (expected the opk1:… line `onceport operator keygen` prints)\n"),
        run("operator", "add", "dave", "--data", data().toString(), "--public-key", "ssh-ed25519 AAAA"));

    Run again = run("operator", "keygen", "carol", "--key-dir", operatorKeys.toString());
    assertEquals(1, again.exit());
    Run rotated = run("operator", "keygen", "carol", "--key-dir", operatorKeys.toString(), "--rotate");
    assertEquals(0, rotated.exit(), rotated.err());
    OperatorKey next = OperatorKey.load(operatorKeys.resolve("carol.key"));
    Run rotate = run("operator", "rotate", "carol", "--data", data().toString(), "--public-key", rotated.out().strip());
    assertEquals(new Run(0, "operator carol: new key " + next.keyId() + "; old key " + key.keyId()
        + " retired (statements signed with it are refused)\n", ""), rotate);
    assertEquals(next.keyId(), new OperatorRegistry(data()).find("carol").orElseThrow().keyId());
  }

  private static <T> List<T> names(java.util.Iterator<T> it) {
    List<T> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
