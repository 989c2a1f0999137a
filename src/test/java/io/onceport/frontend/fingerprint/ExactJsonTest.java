package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.contract.ToolContract;
import java.util.List;
import java.util.Random;
import org.erdtman.jcs.JsonCanonicalizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExactJsonTest {
  private static final ObjectMapper EXACT = ExactJson.newMapper();
  private static final String ANY_OBJECT = "{\"type\":\"object\"}";
  private final ArgumentValidator validator = new ArgumentValidator();
  private final Fingerprinter fingerprinter = new Fingerprinter(FingerprintGoldenTest.KEY);

  private JsonNode args(String json) throws Exception {
    return validator.validate(ArgumentValidatorTest.withSchema(ANY_OBJECT), EXACT.readTree(json));
  }

  private String fp(String json) throws Exception {
    return fp(ArgumentValidatorTest.withSchema(ANY_OBJECT), json);
  }

  private String fp(ToolContract c, String json) throws Exception {
    return fingerprinter.fingerprint(c, "agent:a", validator.validate(c, EXACT.readTree(json)), null);
  }

  private String record(String json) throws Exception {
    return fingerprinter.canonicalRecord(ArgumentValidatorTest.withSchema(ANY_OBJECT), "agent:a", args(json), null)
        .canonicalJson();
  }

  @Test
  void twoToThe53AndTwoToThe53PlusOneHaveDifferentFingerprints() throws Exception {
    assertNotEquals(fp("{\"n\":9007199254740992}"), fp("{\"n\":9007199254740993}"));
    assertNotEquals(fp("{\"n\":-9007199254740993}"), fp("{\"n\":-9007199254740992}"));
    assertNotEquals(fp("{\"n\":123456789012345678901234567890}"), fp("{\"n\":123456789012345678901234567891}"));
  }

  @Test
  void decimalsDifferingAfterTheSeventeenthDigitHaveDifferentFingerprints() throws Exception {
    assertNotEquals(fp("{\"x\":3.14159265358979323846264338327950288}"), fp("{\"x\":3.14159265358979323846264338327950289}"));
    assertNotEquals(fp("{\"x\":0.1}"), fp("{\"x\":0.1000000000000000000000001}"));
    assertNotEquals(fp("{\"x\":1e400}"), fp("{\"x\":2e400}"));
  }

  @Test
  void anExactNumberIsNeverTheStringWithItsDigits() throws Exception {
    assertNotEquals(fp("{\"n\":9007199254740993}"), fp("{\"n\":\"9007199254740993\"}"));
  }

  @Test
  void theSameValueWrittenDifferentlyIsTheSameIntent() throws Exception {
    String base = fp("{\"n\":9007199254740993,\"m\":[1.00000000000000000001]}");
    assertEquals(base, fp("{\"m\":[1.000000000000000000010],\"n\":9007199254740993.0}"));
    assertEquals(base, fp("{\"m\":[100000000000000000001e-20],\"n\":9.007199254740993e15}"));
  }

  @Test
  void canonicalRecordKeepsExactNumbersAsDecimalStringsAndListsTheirPointers() throws Exception {
    assertEquals("{\"actor\":\"agent:a\",\"arguments\":{\"a/b\":[1,\"9007199254740993\"],\"big\":\"1E+1001\",\"n\":5,"
            + "\"pi\":\"3.14159265358979323846\",\"x~\":{\"y\":\"-123456789012345678901234567890\"}},"
            + "\"channel\":\"http\",\"exact_numbers\":[\"/a~1b/1\",\"/big\",\"/pi\",\"/x~0/y\"],\"intent_scope\":\"actor:agent:a\","
            + "\"method\":\"POST\",\"target\":\"http://h/x\",\"tool\":\"t\"}",
        record("{\"x~\":{\"y\":-123456789012345678901234567890},\"pi\":3.14159265358979323846,\"n\":5,"
            + "\"big\":10e1000,\"a/b\":[1,9007199254740993]}"));
    assertFalse(record("{\"n\":9007199254740992,\"x\":0.1}").contains("exact_numbers"));
  }

  @Test
  void displayedArgumentsKeepTheDigitsTheClientSent() throws Exception {
    ToolContract c = ArgumentValidatorTest.withSchema(ANY_OBJECT);
    assertEquals("{\"big\":1E+400,\"n\":9007199254740993,\"pi\":3.14159265358979323846264338327950288,\"s\":0.5}",
        Fingerprinter.maskedArguments(c, args("{\"s\":0.50,\"pi\":3.14159265358979323846264338327950288,"
            + "\"n\":9007199254740993,\"big\":1e400}")));
  }

  @Test
  void exactNumbersInSecretArgumentsStayDistinctAndScalarSecretsHash() throws Exception {
    ToolContract c = new ToolContract("t", "", ANY_OBJECT, null, ToolContract.Channel.HTTP,
        new io.onceport.workflow.contract.HttpSpec("POST", "http://h/x", null, null, null, null, 1000), null,
        new io.onceport.workflow.contract.ReplaySpec(io.onceport.workflow.contract.ReplayClass.IRREVERSIBLE,
            java.time.Duration.ofHours(1), null), List.of(), List.of("pin"));
    assertNotEquals(fp(c, "{\"pin\":{\"v\":9007199254740992}}"), fp(c, "{\"pin\":{\"v\":9007199254740993}}"));
    assertNotEquals(fp(c, "{\"pin\":9007199254740992}"), fp(c, "{\"pin\":9007199254740993}"));
    assertNotEquals(fp(c, "{\"pin\":41}"), fp(c, "{\"pin\":42.0}"));
    assertEquals(fp(c, "{\"pin\":42}"), fp(c, "{\"pin\":42.0}"));
    assertFalse(fingerprinter.canonicalRecord(c, "agent:a", args("{\"pin\":9007199254740993}"), null)
        .canonicalJson().contains("9007199254740993"));
  }

  @Test
  void validationComparesExactValues() throws Exception {
    ToolContract c = ArgumentValidatorTest.withSchema(
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"maximum\":9007199254740992},"
            + "\"x\":{\"type\":\"number\",\"exclusiveMaximum\":1.5}}}");
    validator.validate(c, EXACT.readTree("{\"n\":9007199254740992,\"x\":1.49999999999999999999}"));
    InvalidArgumentsException e = assertThrows(InvalidArgumentsException.class,
        () -> validator.validate(c, EXACT.readTree("{\"n\":9007199254740993,\"x\":1.50000000000000000001}")));
    assertEquals(2, e.errors().size(), e.getMessage());
    assertEquals(new java.math.BigInteger("9007199254740993"),
        args("{\"n\":9007199254740993.0e0}").get("n").decimalValue().toBigIntegerExact());
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-0", "1", "0.1", "1.10", "100.0", "1e2", "1e21", "1e-7", "5e-324", "0.30000000000000004",
      "9007199254740992", "-9007199254740992", "1.7976931348623157e308", "2147483648"})
  void ordinaryNumbersAreLeftToJcs(String literal) throws Exception {
    assertFalse(ExactJson.needsExact(EXACT.readTree(literal)), literal);
  }

  @ParameterizedTest
  @ValueSource(strings = {"9007199254740993", "1152921504606846976", "123456789012345678901234567890", "1e400", "-1e400",
      "1e-400", "0.1000000000000000000000001", "3.14159265358979323846"})
  void numbersJcsWouldRoundNeedExactTreatment(String literal) throws Exception {
    assertTrue(ExactJson.needsExact(EXACT.readTree(literal)), literal);
  }

  @Test
  void aHugeExponentStaysShort() throws Exception {
    assertEquals("1E+999999999", ExactJson.decimalText(EXACT.readTree("1e999999999")));
    assertEquals("1152921504606846976", ExactJson.decimalText(EXACT.readTree("1152921504606846976.000")));
  }

  /** The writer used for exact numbers agrees with the JCS library on everything the library handles. */
  @Test
  void canonicalWriterMatchesTheJcsLibraryOnOrdinaryTrees() throws Exception {
    Random random = new Random(8785);
    for (int i = 0; i < 500; i++) {
      JsonNode tree = JsonNodeFactory.instance.arrayNode().add(randomTree(random, 0));
      String expected = new JsonCanonicalizer(tree.toString()).getEncodedString();
      assertEquals(expected, ExactJson.display(tree));
      assertEquals(expected, writeAlways(tree), tree.toString());
    }
  }

  /** The hand-written path, even when the tree has no exact number. */
  private static String writeAlways(JsonNode tree) throws Exception {
    ObjectNode wrapper = JsonNodeFactory.instance.objectNode();
    wrapper.set("v", tree);
    wrapper.put("z", new java.math.BigInteger("9007199254740993"));
    String all = ExactJson.canonical(wrapper);
    return all.substring("{\"v\":".length(), all.length() - ",\"z\":9007199254740993}".length());
  }

  private static JsonNode randomTree(Random r, int depth) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    int kind = depth > 3 ? 2 + r.nextInt(4) : r.nextInt(6);
    switch (kind) {
      case 0 -> {
        ObjectNode o = f.objectNode();
        for (int i = r.nextInt(5); i > 0; i--) {
          o.set(randomString(r), randomTree(r, depth + 1));
        }
        return o;
      }
      case 1 -> {
        ArrayNode a = f.arrayNode();
        for (int i = r.nextInt(5); i > 0; i--) {
          a.add(randomTree(r, depth + 1));
        }
        return a;
      }
      case 2 -> {
        return f.textNode(randomString(r));
      }
      case 3 -> {
        return switch (r.nextInt(4)) {
          case 0 -> f.numberNode(r.nextInt());
          case 1 -> f.numberNode((r.nextLong() >> 11) >> r.nextInt(53)); // within 2^53
          case 2 -> f.numberNode(Double.longBitsToDouble(r.nextLong() & 0x7fefffffffffffffL) * (r.nextBoolean() ? 1 : -1));
          default -> f.numberNode(java.math.BigDecimal.valueOf(r.nextInt(100000), r.nextInt(7) - 3)); // as an exact parser reads 12.34, 1.5e3
        };
      }
      case 4 -> {
        return f.booleanNode(r.nextBoolean());
      }
      default -> {
        return f.nullNode();
      }
    }
  }

  private static String randomString(Random r) {
    String alphabet = "aZ09 \"\\/\b\f\n\r\t\u0000\u001f\u007f\u0080é€\u2028\uffff";
    StringBuilder b = new StringBuilder();
    for (int i = r.nextInt(6); i > 0; i--) {
      if (r.nextInt(8) == 0) {
        b.appendCodePoint(0x1F600 + r.nextInt(50));
      } else {
        b.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
    }
    return b.toString();
  }
}
