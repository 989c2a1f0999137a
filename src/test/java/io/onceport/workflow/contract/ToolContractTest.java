package io.onceport.workflow.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolContractTest {
  private static final ReplaySpec STATUS_QUERY_WITHOUT_STATUS =
      new ReplaySpec(ReplayClass.STATUS_QUERY, Duration.ofHours(1), null);

  @Test
  void httpStatusQueryToolNeedsAStatusSpec() {
    HttpSpec http = new HttpSpec("POST", "http://h/x", null, null, null, null, 1000);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ToolContract("t", null, "{}",
        null, ToolContract.Channel.HTTP, http, null, STATUS_QUERY_WITHOUT_STATUS, null, null));
    assertEquals("replay.status is required for class status_query", e.getMessage());
  }

  @Test
  void sshStatusQueryToolIsAnsweredByItsMarkerWithoutAStatusSpec() {
    SshSpec ssh = new SshSpec("h", 22, "u", "SHA256:k", "c", null, List.of("ls"), null, true, "onceport-run", null,
        1000);
    ToolContract c = new ToolContract("t", null, "{}", null, ToolContract.Channel.SSH, null, ssh,
        STATUS_QUERY_WITHOUT_STATUS, null, null);
    assertEquals(ReplayClass.STATUS_QUERY, c.replayClass());
  }
}
