package io.onceport.shared.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CommandNameTest {
  @Test
  void theInvokedNameIsUsedOnlyWhenItIsAPlainPath() {
    assertEquals("bin/onceport", CommandName.of("bin/onceport"));
    assertEquals("./bin/onceport", CommandName.of("./bin/onceport"));
    assertEquals("onceport", CommandName.of(null));
    assertEquals("onceport", CommandName.of("bin/once port"));
    assertEquals("onceport", CommandName.of("x;rm -rf /"));
  }

  @Test
  void theNeedsReviewHintGetsItsRequiredFlags() {
    assertEquals("outcome unknown (x); it was not re-sent and waits for an operator: `bin/onceport executions resolve act_01AB "
        + "--completed --reason 'checked the target'` (after checking the target; --failed if it did not happen, --redispatch "
        + "if it provably did not run)",
        CommandName.hint("outcome unknown (x); it was not re-sent and waits for an operator: onceport executions resolve act_01AB",
            "bin/onceport"));
    String complete = "onceport executions resolve act_1 --failed --reason 'gone'";
    assertEquals(complete, CommandName.hint(complete, "onceport"));
  }

  @Test
  void hintsMadeWithoutTheNameAreRewrittenWithIt() {
    assertEquals("waits for an operator: bin/onceport executions resolve act_1",
        CommandName.localize("waits for an operator: onceport executions resolve act_1", "bin/onceport"));
    assertEquals("run `bin/onceport vault init` (or bin/onceport vault unlock)",
        CommandName.localize("run `onceport vault init` (or onceport vault unlock)", "bin/onceport"));
    // Not a command: a word inside a path or a name stays.
    assertEquals("/usr/local/bin/onceport-run and io.onceport serve", CommandName.localize(
        "/usr/local/bin/onceport-run and io.onceport serve", "bin/onceport"));
  }
}
