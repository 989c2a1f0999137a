package io.onceport.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.IntentKeys;
import io.onceport.frontend.fingerprint.WorkflowIds;
import io.onceport.workflow.ids.IdParts;
import io.onceport.workflow.ids.AgentSessionId;
import io.onceport.workflow.session.SessionWorkflowIds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Issue 25 item 2: no two identities share one id. Actor names, run ids, client names and versions,
 * credential generations and intent keys are generated with the characters that once made plain
 * joins collide ({@code :} and {@code /}), the escape characters themselves ({@code %}, {@code ~},
 * ready-made escapes such as {@code %2F}), backslashes, controls and ANSI escapes, non-ASCII, emoji
 * and lone surrogates; every id built from parts — session ids, session workflow ids (keyed and
 * unkeyed), intent-key workflow ids, the escaped part itself — is checked to be one-to-one on
 * them, and session ids to parse back to their parts. An exhaustive pass over a small alphabet
 * checks every tuple against every other.
 */
class IdentityCollisionPropertyTest {
  private static final FingerprintKey KEY = FingerprintKey.of(new byte[] {
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32});
  private static final SessionWorkflowIds KEYED = SessionWorkflowIds.keyed(KEY::hmac);
  private static final SessionWorkflowIds UNKEYED = SessionWorkflowIds.unkeyed();

  /** A call's session-relevant inputs, as the front end sees them. */
  record Call(String actor, String generation, String mcp, String run, String clientName, String clientVersion) {}

  /** What a call's session is, after SessionIds' documented rule: first match wins, parts stripped, blank = absent. */
  record Effective(String actor, String generation, String kind, List<String> parts) {}

  static Effective effective(Call c) {
    String gen = blank(c.generation()) ? null : c.generation();
    if (!blank(c.mcp())) {
      return new Effective(c.actor(), gen, "mcp", List.of(c.mcp().strip()));
    }
    if (!blank(c.run())) {
      return new Effective(c.actor(), gen, "run", List.of(c.run().strip()));
    }
    List<String> parts = new ArrayList<>();
    if (!blank(c.clientName())) {
      parts.add(c.clientName().strip());
      if (!blank(c.clientVersion())) {
        parts.add(c.clientVersion().strip());
      }
    }
    return new Effective(c.actor(), gen, "client", parts);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  @Provide
  Arbitrary<String> part() {
    Arbitrary<String> chars = Arbitraries.strings()
        .withChars(":/%~|\\ -._aAz09")
        .withChars('\n', '\t', '\u001b', '\u007f', '\u00e9', '\u4e2d', '\u2028', '\ud800', '\udc00', '\ud83d', '\ude00')
        .ofMinLength(0).ofMaxLength(7);
    Arbitrary<String> fragments = Arbitraries.of("agent:ci", ":prod", "prod:", "nightly", "/", "%2F", "%3A", "%25", "~",
        "%7E", "oauth:corp/", "\u001b[31m", "%", "%%", "unknown", "%C3%A9");
    return Arbitraries.oneOf(chars, Combinators.combine(fragments, chars, fragments).as((a, b, c) -> a + b + c));
  }

  @Provide
  Arbitrary<String> maybePart() {
    return Arbitraries.oneOf(part(), Arbitraries.just(null));
  }

  @Provide
  Arbitrary<String> actor() {
    return part().filter(a -> !a.isEmpty());
  }

  @Provide
  Arbitrary<Call> call() {
    return Combinators.combine(actor(), maybePart(), maybePart(), maybePart(), maybePart(), maybePart()).as(Call::new);
  }

  @Provide
  Arbitrary<List<Call>> calls() {
    return call().list().ofMinSize(2).ofMaxSize(60);
  }

  @Property(tries = 400)
  void noTwoSessionsOfDifferentActorsRunsOrClientsShareASessionIdOrASessionWorkflow(@ForAll("calls") List<Call> calls) {
    Map<String, Effective> bySessionId = new HashMap<>();
    Map<String, Effective> byKeyedWorkflow = new HashMap<>();
    Map<String, Effective> byUnkeyedWorkflow = new HashMap<>();
    for (Call c : calls) {
      Effective e = effective(c);
      String id = SessionIds.forCall(c.actor(), c.generation(), c.mcp(), c.run(), c.clientName(), c.clientVersion());
      assertOneToOne(bySessionId, id, e);
      assertOneToOne(byKeyedWorkflow, KEYED.workflowId(c.actor(), id), e);
      assertOneToOne(byUnkeyedWorkflow, UNKEYED.workflowId(c.actor(), id), e);
    }
  }

  @Property(tries = 400)
  void everySessionIdParsesBackToItsActorGenerationAndParts(@ForAll("call") Call c) {
    Effective e = effective(c);
    String id = SessionIds.forCall(c.actor(), c.generation(), c.mcp(), c.run(), c.clientName(), c.clientVersion());
    AgentSessionId parsed = AgentSessionId.parse(id).orElseThrow(() -> new AssertionError("does not parse: " + id));
    assertEquals(e, new Effective(parsed.actor(), parsed.generation(), parsed.kind().word(), parsed.parts()), id);
    assertEquals(id, parsed.id());
    assertEquals(KEYED.workflowId(c.actor(), id), KEYED.workflowId(id).orElseThrow(), "the CLI derives the same workflow id");
    id.chars().forEach(ch -> {
      if (ch <= 0x20 || ch >= 0x7f) {
        throw new AssertionError(String.format("U+%04X left unescaped in %s", ch, id));
      }
    });
  }

  @Property(tries = 1000)
  void anEscapedPartIsOneToOneAndReadsBack(@ForAll("part") String a, @ForAll("part") String b) {
    assertEquals(a, IdParts.unescape(IdParts.escape(a)));
    assertEquals(a.equals(b), IdParts.escape(a).equals(IdParts.escape(b)), a + " / " + b);
    assertEquals(Objects.equals(List.of(a, b), List.of(b, a)), IdParts.tuple(a, b).equals(IdParts.tuple(b, a)));
  }

  @Property(tries = 400)
  void noTwoActorsOrKeysShareAnIntentKeyWorkflow(@ForAll("actor") String actorA, @ForAll("part") String keyA,
      @ForAll("actor") String actorB, @ForAll("part") String keyB) {
    if (IntentKeys.problem(keyA) != null || IntentKeys.problem(keyB) != null) {
      return; // the front end refuses such keys before any id is built
    }
    boolean same = actorA.equals(actorB) && keyA.equals(keyB);
    assertEquals(same, WorkflowIds.forIntentKey(KEY, actorA, keyA).equals(WorkflowIds.forIntentKey(KEY, actorB, keyB)));
    // The key's own HMAC input, "intent-key\n" + actor + "\n" + key, is one-to-one because a key has no control
    // character: it ends at the last newline. A colliding pair of inputs would show here whatever the HMAC does.
    assertEquals(same, ("intent-key\n" + actorA + "\n" + keyA).equals("intent-key\n" + actorB + "\n" + keyB));
  }

  /** Every tuple over a small alphabet of the separators against every other: no shared id. */
  @Example
  void exhaustivelyOverTheSeparatorsNoTwoTuplesShareAnId() {
    List<String> strings = all(List.of("a", ":", "/", "%", "~", "2", "F"), 3);
    Map<String, Effective> runs = new HashMap<>();
    for (String actor : strings) {
      if (actor.isEmpty()) {
        continue;
      }
      for (String run : strings) {
        Call c = new Call(actor, null, null, run, null, null);
        Effective e = effective(c);
        String id = SessionIds.forCall(actor, null, run, null, null);
        assertOneToOne(runs, id, e);
        assertOneToOne(runs, UNKEYED.workflowId(actor, id), e);
      }
    }
    List<String> small = all(List.of("a", ":", "/", "%", "~"), 2);
    Map<String, Effective> clients = new HashMap<>();
    for (String actor : small) {
      for (String generation : small) {
        for (String name : small) {
          for (String version : small) {
            if (actor.isEmpty()) {
              continue;
            }
            Call c = new Call(actor, generation, null, null, name, version);
            assertOneToOne(clients, SessionIds.forCall(actor, generation, null, null, name, version), effective(c));
          }
        }
      }
    }
    assertEquals(true, runs.size() > 100_000, "checked " + runs.size());
  }

  @Example
  void anIdThatIsNotInCanonicalFormIsNotASession() {
    assertEquals(java.util.Optional.empty(), AgentSessionId.parse("run:agent:ci/prod%3anightly"), "lower-case hex");
    assertEquals(java.util.Optional.empty(), AgentSessionId.parse("run:agent:ci/prod%3Anightly"), "an escape that needs none");
    assertEquals(java.util.Optional.empty(), AgentSessionId.parse("run:agent:ci/prod/nightly"), "a run has one part");
    assertEquals(java.util.Optional.empty(), AgentSessionId.parse("run:agent:ci:prod:nightly"), "the joined form of before");
    assertEquals(java.util.Optional.empty(), AgentSessionId.parse("client:a//v"), "an empty part");
    assertThrows(IllegalArgumentException.class, () -> IdParts.unescape("%C3"));
  }

  private static void assertOneToOne(Map<String, Effective> seen, String id, Effective e) {
    Effective before = seen.putIfAbsent(id, e);
    if (before != null && !before.equals(e)) {
      throw new AssertionError("two identities share the id " + id + ": " + before + " and " + e);
    }
  }

  private static List<String> all(List<String> alphabet, int maxLength) {
    List<String> out = new ArrayList<>(List.of(""));
    List<String> level = List.of("");
    for (int n = 1; n <= maxLength; n++) {
      List<String> next = new ArrayList<>();
      for (String prefix : level) {
        for (String c : alphabet) {
          next.add(prefix + c);
        }
      }
      out.addAll(next);
      level = next;
    }
    return out;
  }
}
