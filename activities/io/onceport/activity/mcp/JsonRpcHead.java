package io.onceport.activity.mcp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The {@code id} and {@code method} of a JSON-RPC message read from its beginning only: for a
 * message too large to read whole ({@link BoundedLines}), whose first bytes still say which request
 * it answers. Fields are read in order until both are found or a nested value is cut off; SDKs write
 * {@code jsonrpc}, {@code id} and {@code method} before {@code result} or {@code params}.
 *
 * @param id the top-level {@code id} as text, or null when not found
 * @param method the top-level {@code method}, or null when not found
 */
record JsonRpcHead(String id, String method) {
  private static final JsonFactory JSON = new JsonFactory();

  static JsonRpcHead of(String prefix) {
    String id = null;
    String method = null;
    try (JsonParser p = JSON.createParser(prefix)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new JsonRpcHead(null, null);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME && (id == null || method == null)) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if (name.equals("id") && value.isScalarValue()) {
          id = p.getText();
        } else if (name.equals("method") && value == JsonToken.VALUE_STRING) {
          method = p.getText();
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException e) {
      // the prefix ends inside a value: what was read so far is all there is
    }
    return new JsonRpcHead(id, method);
  }
}
