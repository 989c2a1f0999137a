package io.onceport.workflow.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UrlTemplateTest {
  private static UrlTemplate.Values values(Map<String, String> map) {
    return map::get;
  }

  @Test
  void valuesArePercentEncodedAsUtf8ExceptUnreservedCharacters() {
    String value = "a/b c?d#e&f=g~h.i_j-k\u00e9\uD83D\uDE00%";

    String rendered = UrlTemplate.render("http://h/x/{{v}}", "url", values(Map.of("v", value)));

    String expected = URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%7E", "~");
    assertEquals("http://h/x/" + expected, rendered);
  }

  @Test
  void anUnpairedSurrogateEncodesAsAQuestionMarkLikeJavasEncoder() {
    assertEquals("a%3Fb", UrlTemplate.percentEncode("a\uD800b"));
    assertEquals(new String("a\uD800b".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8), "a?b");
  }

  @Test
  void dotSegmentsAreRefusedInThePathButNotInTheQuery() {
    assertEquals("http://h/x?q=..&r=.", UrlTemplate.render("http://h/x?q={{q}}&r={{r}}", "url", values(Map.of("q", "..", "r", "."))));
    assertEquals("http://h/...", UrlTemplate.render("http://h/{{a}}", "url", values(Map.of("a", "..."))));

    UrlTemplate.InvalidUrlException up = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/x/{{a}}/y", "url", values(Map.of("a", ".."))));
    UrlTemplate.InvalidUrlException last = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/x/{{a}}?q=1", "url", values(Map.of("a", "."))));
    UrlTemplate.InvalidUrlException encodedLiteral = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/x/%2E{{a}}", "url", values(Map.of("a", "."))));
    UrlTemplate.InvalidUrlException backslash = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/x\\{{a}}", "url", values(Map.of("a", ".."))));

    assertEquals("a", up.placeholder());
    assertEquals("a", last.placeholder());
    assertEquals("a", encodedLiteral.placeholder());
    assertEquals("a", backslash.placeholder());
  }

  @Test
  void aDotSegmentWrittenInTheTemplateItselfIsNamedAsTheTemplatesFault() {
    UrlTemplate.InvalidUrlException e = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/a/../{{b}}", "url", values(Map.of("b", "x"))));

    assertNull(e.placeholder());
    assertEquals("The url template's path has the segment '..', which HTTP clients resolve instead of sending", e.getMessage());
  }

  @Test
  void aMaskedValueIsCheckedButShownAsItsPlaceholder() {
    assertEquals("http://h/{{token}}/n", UrlTemplate.render("http://h/{{token}}/{{name}}", "url",
        values(Map.of("token", "t0k/en", "name", "n")), Set.of("token")));

    UrlTemplate.InvalidUrlException e = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/{{token}}", "url", values(Map.of("token", "..")), Set.of("token")));
    assertEquals("token", e.placeholder());
  }

  @Test
  void aMissingValueAndAStrayBraceAreRefusedWithExactMessages() {
    UrlTemplate.InvalidUrlException missing = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/{{v}}", "url", values(Map.of())));
    UrlTemplate.InvalidUrlException stray = assertThrows(UrlTemplate.InvalidUrlException.class,
        () -> UrlTemplate.render("http://h/{{v}}/{{w", "url", values(Map.of("v", "x"))));

    assertEquals("Placeholder {{v}} in url has no argument value", missing.getMessage());
    assertEquals("has no argument value", missing.reason());
    assertEquals("Malformed placeholder in url template 'http://h/{{v}}/{{w'", stray.getMessage());
  }
}
