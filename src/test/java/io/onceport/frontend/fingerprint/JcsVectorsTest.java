package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.erdtman.jcs.JsonCanonicalizer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The published RFC 8785 vectors, run both through the library directly and through the path
 * fingerprints take (request JSON → Jackson tree → {@link CanonicalActionRecord#jcs}).
 */
class JcsVectorsTest {
  private static final Path DIR = Path.of("src/test/resources/jcs");
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void publishedVectorCanonicalizesToExpectedBytes(String name) throws IOException {
    String input = Files.readString(DIR.resolve(name + ".input.json"));
    byte[] expected = Files.readAllBytes(DIR.resolve(name + ".output.json"));
    assertEquals(new String(expected, "UTF-8"), new JsonCanonicalizer(input).getEncodedString());
    assertEquals(new String(expected, "UTF-8"), CanonicalActionRecord.jcs(JSON.readTree(input)));
  }

  static List<String[]> numbers() throws IOException {
    return Files.readAllLines(DIR.resolve("numbers.txt")).stream()
        .filter(l -> !l.startsWith("#") && !l.isBlank())
        .map(l -> l.split(" "))
        .collect(Collectors.toList());
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("numbers")
  void rfc8785AppendixBNumberSerializes(String hex, String expected) throws IOException {
    double d = Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16));
    String exact = new BigDecimal(d).toString(); // exact decimal value of the double, valid JSON
    assertEquals("[" + expected + "]", new JsonCanonicalizer("[" + exact + "]").getEncodedString());
    assertEquals("[" + expected + "]", CanonicalActionRecord.jcs(JSON.readTree("[" + exact + "]")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"[NaN]", "[Infinity]"})
  void nonFiniteNumbersAreNotJson(String input) {
    assertThrows(IOException.class, () -> new JsonCanonicalizer(input).getEncodedString());
  }
}
