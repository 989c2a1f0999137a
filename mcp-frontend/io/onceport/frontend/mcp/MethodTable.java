package io.onceport.frontend.mcp;

import io.onceport.frontend.gateway.GatewayException;
import java.util.Map;
import java.util.function.Function;

/**
 * A revision's method → handler map, and the one place where what a handler throws becomes a
 * JSON-RPC error: an {@link McpException} gets the request's id, an unknown tool or an oversized
 * call is {@code -32602}, any other execution-layer failure {@code -32603}.
 */
final class MethodTable {
  private final Map<String, MethodHandler> methods;
  private final Function<Exchange, McpException> notFound;

  /** @param notFound the refusal of a method the table does not have */
  MethodTable(Map<String, MethodHandler> methods, Function<Exchange, McpException> notFound) {
    this.methods = Map.copyOf(methods);
    this.notFound = notFound;
  }

  McpController.Reply dispatch(Exchange ex, Transport.Accepts accepts) {
    MethodHandler handler = methods.get(ex.method());
    if (handler == null) {
      throw notFound.apply(ex);
    }
    try {
      return handler.handle(ex, accepts);
    } catch (McpException e) {
      throw e.id == null ? e.withId(ex.id()) : e;
    } catch (GatewayException e) {
      if (e.kind() == GatewayException.Kind.UNKNOWN_TOOL || e.kind() == GatewayException.Kind.TOO_LARGE) {
        throw McpException.rpc(McpException.INVALID_PARAMS, e.getMessage(), ex.id());
      }
      throw McpException.rpc(McpException.INTERNAL_ERROR, "Execution layer: " + e.getMessage(), ex.id());
    }
  }
}
