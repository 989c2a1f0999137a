package io.onceport.app.demo;

import static io.onceport.app.demo.DemoTarget.FAULTS;
import static io.onceport.app.demo.DemoTarget.error;
import static io.onceport.app.demo.DemoTarget.parseObject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.demo.DemoTarget.Handling;

/** The fault armed for the {@link DemoTarget}'s next POST action requests. All state is guarded by this. */
final class ArmedFaults {
  private static final ObjectMapper JSON = new ObjectMapper();

  private String armedFault;
  private int armedCount;

  /**
   * Arms {@code fault} for the next {@code count} POST action requests, as {@code POST
   * /admin/faults} does.
   *
   * @throws IllegalArgumentException for a fault outside {@link DemoTarget#FAULTS} or a count below 1
   */
  synchronized void armFault(String fault, int count) {
    if (Fault.parse(fault) == null) {
      throw new IllegalArgumentException("Invalid fault '" + fault + "': expected " + FAULTS);
    }
    if (count < 1) {
      throw new IllegalArgumentException("Invalid fault count: " + count);
    }
    armedFault = fault.trim();
    armedCount = count;
  }

  synchronized Reply armFault(String body) {
    JsonNode request = parseObject(body);
    String next = request == null ? null : request.path("next").asText(null);
    int count = request == null ? 0 : request.path("count").asInt(1);
    if (Fault.parse(next) == null) {
      return error(400, "next must be " + FAULTS);
    }
    if (count < 1) {
      return error(400, "count must be at least 1");
    }
    armFault(next, count);
    ObjectNode armed = JSON.createObjectNode();
    armed.put("next", armedFault);
    armed.put("count", count);
    return new Reply(200, armed.toString(), null, false, Handling.READ);
  }

  /**
   * One use of the armed fault, or null. A fault only a rotation can show ({@code apply-late},
   * {@code apply-never}) stays armed for the next rotation: other actions pass it by.
   */
  synchronized Fault takeArmedFault(boolean rotation) {
    if (armedFault == null) {
      return null;
    }
    Fault fault = Fault.parse(armedFault);
    if (fault.rotationOnly() && !rotation) {
      return null;
    }
    if (--armedCount == 0) {
      armedFault = null;
    }
    return fault;
  }
}
