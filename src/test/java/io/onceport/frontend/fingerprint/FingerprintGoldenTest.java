package io.onceport.frontend.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.contract.ToolContract;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fingerprints and displayed arguments of ordinary calls, pinned: computed with the code before
 * big numbers were canonicalized exactly, so a change that moves the fingerprint of an existing
 * call (a retry after an upgrade would then dispatch again) fails here.
 */
class FingerprintGoldenTest {
  static final Path GOLDEN = Path.of("src/test/resources/fingerprints/golden.tsv");
  static final FingerprintKey KEY = FingerprintKey.of(keyBytes());

  static byte[] keyBytes() {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) i;
    }
    return b;
  }

  static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"d\":{\"type\":\"number\",\"default\":2.50}}}";

  static ToolContract http() {
    return new ToolContract("golden_http", "", SCHEMA, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", "http://Example.test:8080/v1/items/{{id}}/{{s}}?q={{id}}", null, Map.of(), null, "api", 1000),
        null, new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), List.of("ignored"), List.of("secret"));
  }

  static ToolContract ssh() {
    return new ToolContract("golden_ssh", "", SCHEMA, null, ToolContract.Channel.SSH, null,
        new SshSpec("db1", 22, "deploy", "SHA256:abc", "ssh-cred", null, List.of("/bin/scale", "{{id}}", "--to={{s}}", "{{secret}}"),
            "/srv", true, null, null, 1000),
        new ReplaySpec(ReplayClass.IRREVERSIBLE, Duration.ofHours(1), null), List.of("ignored"), List.of("secret"));
  }

  static final List<String> ARGUMENTS = List.of(
      "{}",
      "{\"id\":1,\"s\":\"a b/c\"}",
      "{\"id\":-0,\"s\":\"x\",\"d\":-0.0}",
      "{\"id\":1.10,\"s\":1e2,\"d\":100.0}",
      "{\"id\":0.1,\"s\":123.456,\"d\":1.5e-7}",
      "{\"id\":9007199254740992,\"s\":-9007199254740991,\"d\":1e21}",
      "{\"id\":1e300,\"s\":5e-324,\"d\":1.7976931348623157e308}",
      "{\"id\":2147483648,\"s\":4294967296,\"d\":0.30000000000000004}",
      "{\"id\":\"\\u00e9\\u20ac\\ud83d\\ude00\",\"s\":\"\\n\\t\\\"\\\\\\u0001\\u007f\",\"d\":3}",
      "{\"id\":[1,2.0,[3e0]],\"s\":{\"b\":1,\"a\":[true,false,null]},\"d\":-1}",
      "{\"id\":7,\"s\":\"k\",\"ignored\":123456789.123,\"secret\":\"hunter2\"}",
      "{\"id\":7,\"s\":\"k\",\"secret\":{\"n\":1.25,\"z\":[1,2]}}",
      "{\"\\u20ac\":1,\"\\u00e9\":2,\"a\":3,\"\\ud83d\\ude00\":4,\"id\":5,\"s\":6}");

  /** What the MCP layer parses a request with (the golden file was written with a plain ObjectMapper). */
  static JsonNode parse(String json) throws Exception {
    return ExactJson.newMapper().readTree(json.getBytes(StandardCharsets.UTF_8));
  }

  static List<String> compute() throws Exception {
    ArgumentValidator validator = new ArgumentValidator();
    Fingerprinter f = new Fingerprinter(KEY);
    List<String> lines = new ArrayList<>();
    for (ToolContract c : List.of(http(), ssh())) {
      for (String a : ARGUMENTS) {
        JsonNode args;
        try {
          args = validator.validate(c, parse(a));
        } catch (InvalidArgumentsException e) {
          lines.add(c.tool() + "\t" + a + "\trefused: " + e.getMessage());
          continue;
        }
        CanonicalActionRecord r = f.canonicalRecord(c, "agent:golden", args, null);
        lines.add(c.tool() + "\t" + a + "\t" + f.fingerprint(r) + "\t" + Fingerprinter.maskedArguments(c, args));
      }
    }
    return lines;
  }

  /**
   * Calls the golden file has but that are refused now, on purpose: a URL placeholder without a
   * value or with an object/array value cannot make the URL that is sent (dot-segment and
   * placeholder checks), so such a call is invalid arguments rather than an execution.
   */
  static final List<String> REFUSED_SINCE = List.of(
      "golden_http\t{}\trefused: id: has no argument value (http.url)",
      "golden_http\t{\"id\":[1,2.0,[3e0]],\"s\":{\"b\":1,\"a\":[true,false,null]},\"d\":-1}\trefused: "
          + "id: needs a scalar, got array (http.url)");

  @Test
  void fingerprintsAndDisplayedArgumentsOfOrdinaryCallsAreUnchanged() throws Exception {
    if (System.getProperty("golden.write") != null) {
      Files.write(GOLDEN, compute(), StandardCharsets.UTF_8);
    }
    List<String> golden = Files.readAllLines(GOLDEN, StandardCharsets.UTF_8);
    List<String> now = compute();
    assertEquals(golden.size(), now.size());
    List<String> refused = new ArrayList<>();
    for (int i = 0; i < now.size(); i++) {
      if (now.get(i).contains("\trefused: ")) {
        refused.add(now.get(i));
      } else {
        assertEquals(golden.get(i), now.get(i));
      }
    }
    assertEquals(REFUSED_SINCE, refused);
  }
}
