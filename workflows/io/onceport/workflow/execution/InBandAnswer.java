package io.onceport.workflow.execution;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.workflow.dispatch.AnswerPlan;
import io.onceport.workflow.dispatch.DispatchRequest;
import io.onceport.workflow.dispatch.DispatchResult;
import io.onceport.workflow.replay.ReplayPolicy;
import io.onceport.workflow.replay.ReplayPolicy.Action;
import io.onceport.workflow.replay.ReplayPolicy.Fact;
import io.onceport.workflow.replay.ReplayPolicy.Step;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.helpers.NOPLogger;

/**
 * The record an answered send settles on, built outside the workflow by the workflow's own code:
 * the plan carries the {@link Execution} as the workflow held it when it scheduled the send, and
 * {@link #answered} applies to it the steps {@link Dispatcher} applies when the answer arrives
 * (the send ends and is answered, the {@link ReplayPolicy} settles it, the attach window opens).
 * So the caller answered in band reads what a caller answered by the engine would read, with the
 * worker's clock for the times instead of the workflow task's.
 */
public final class InBandAnswer {
  /** The calls a plan names: the first ones attached (a storm's later callers are answered by the engine). */
  static final int MAX_CALLS = 16;
  /** Runs on workflow threads, as many as the cached runs: one process-wide buffer pool, not a set per thread. */
  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  static {
    JSON.getFactory().setRecyclerPool(JsonRecyclerPools.sharedConcurrentDequePool());
  }

  private InBandAnswer() {}

  /** The plan for a send about to be scheduled: the execution as it stands (its queued entries already travel with the send). */
  static AnswerPlan plan(Execution execution, String startedAt, long attachWindowMillis) {
    List<String> calls = execution.record().calls().stream().limit(MAX_CALLS).map(AttachedCall::callId).toList();
    ObjectNode state = JSON.valueToTree(execution);
    // The send carries the contract, the arguments, the execution id and the fingerprint already:
    // not twice (answered() puts them back). Each identity field goes only where it holds the
    // send's value, so a plan without one means exactly that value.
    ObjectNode input = (ObjectNode) state.get("input");
    input.remove(SHARED_WITH_THE_SEND);
    String executionId = execution.executionId();
    String fingerprint = execution.input().fingerprint();
    removeIfEqual(state, "executionId", executionId);
    removeIfEqual(input, "executionId", executionId);
    removeIfEqual(input, "fingerprint", fingerprint);
    if (state.get("journal") instanceof ObjectNode journal) {
      removeIfEqual(journal, "executionId", executionId);
      removeIfEqual(journal, "fingerprint", fingerprint);
    }
    return new AnswerPlan(state, calls, startedAt, attachWindowMillis);
  }

  /** The input's fields a {@link DispatchRequest} carries itself. */
  private static final List<String> SHARED_WITH_THE_SEND = List.of("contract", "arguments");

  private static void removeIfEqual(ObjectNode node, String field, String value) {
    if (value != null && value.equals(node.path(field).textValue())) {
      node.remove(field);
    }
  }

  /** Puts back a field {@link #plan} left out because the send carries it. */
  private static void restore(ObjectNode node, String field, String value) {
    if (!node.has(field)) {
      node.put(field, value);
    }
  }

  /**
   * The record the workflow will hold once this answer is settled, or null when the policy would not
   * settle on it (then nobody is answered in band).
   *
   * @param send the send that got the answer (its contract and arguments complete the plan's state)
   * @param reference the result reference the send journaled with the outcome
   */
  public static ExecutionRecord answered(DispatchRequest send, AnswerPlan plan, String reference, DispatchResult answer,
      LongSupplier clock) {
    Execution e;
    try {
      ObjectNode state = plan.execution().deepCopy();
      ObjectNode input = (ObjectNode) state.get("input");
      input.set("contract", JSON.valueToTree(send.contract()));
      input.put("arguments", send.arguments());
      restore(state, "executionId", send.executionId());
      restore(input, "executionId", send.executionId());
      restore(input, "fingerprint", send.fingerprint());
      if (state.get("journal") instanceof ObjectNode journal) {
        restore(journal, "executionId", send.executionId());
        restore(journal, "fingerprint", send.fingerprint());
      }
      e = JSON.treeToValue(state, Execution.class).resume(clock, NOPLogger.NOP_LOGGER);
    } catch (JsonProcessingException | IllegalArgumentException | ClassCastException | NullPointerException unreadable) {
      return null;
    }
    e.sends().ended(clock.getAsLong());
    e.sendAnswered(send.attempt(), plan.startedAt(), Dispatcher.code(answer), reference);
    Step step = ReplayPolicy.DEFAULT.decide(e.input().contract().replayClass(), Fact.ANSWERED, e.situation(answer.succeeded()));
    if (step.action() != Action.SETTLE_COMPLETED && step.action() != Action.SETTLE_FAILED) {
      return null;
    }
    e.sends().decided(step);
    e.settledOnAnswer(answer, step.action() == Action.SETTLE_COMPLETED);
    e.attachWindowOpened(clock.getAsLong() + plan.attachWindowMillis());
    return e.record();
  }
}
