package io.onceport.frontend.mcp;

/** Answers one JSON-RPC method; registered by method reference in a revision's {@link MethodTable}. */
@FunctionalInterface
interface MethodHandler {
  McpController.Reply handle(Exchange ex, Transport.Accepts accepts);
}
