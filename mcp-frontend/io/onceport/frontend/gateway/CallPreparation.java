package io.onceport.frontend.gateway;

import io.onceport.workflow.contract.ToolContract;
import java.util.List;

/**
 * Turns a call into an intent: finds the contract, validates and normalizes the arguments, builds
 * the canonical action record and its fingerprint. Pure computation: no Temporal, no target.
 */
public interface CallPreparation {
  /** The loaded contracts in tool-name order. */
  List<ToolContract> tools();

  /** @throws GatewayException UNKNOWN_TOOL or INVALID_ARGUMENTS */
  PreparedCall prepare(ToolCall call);
}
