package io.onceport.app.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.onceport.shared.codec.AesGcmPayloadCodec;
import io.onceport.shared.codec.KeyRing;
import io.onceport.activity.operator.OperatorKey;
import io.onceport.testing.GatewayHarness;
import io.onceport.testing.Operators;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DefaultDataConverter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The front end's codec server, wired as {@code serve} wires it, answers operators only: an
 * operator's codec token decodes, an agent's bearer token (which works on /mcp) does not, and a
 * rotated key's old token stops working.
 */
@Timeout(90)
class CodecServerOperatorAuthTest {
  @Test
  void onlyAnOperatorsCodecTokenDecodesAndAnAgentTokenIsRefused() throws Exception {
    try (GatewayHarness gateway = new GatewayHarness(false)) {
      OperatorKey carol = Operators.register(gateway.data, "carol");
      Payload secret = DefaultDataConverter.newDefaultInstance().toPayload("the deploy token is hunter2").orElseThrow();
      Payload encrypted = new AesGcmPayloadCodec(KeyRing.loadOrCreate(gateway.data)).encode(List.of(secret)).get(0);
      String body = CodecServer.render(List.of(encrypted));

      HttpResponse<String> agent = decode(gateway, body, gateway.token);
      assertEquals(401, agent.statusCode());
      assertEquals("{\"error\":\"token not allowed to use the codec server\"}", agent.body());

      HttpResponse<String> operator = decode(gateway, body, carol.codecToken());
      assertEquals(200, operator.statusCode(), operator.body());
      assertEquals(List.of(secret), CodecServer.parse(operator.body().getBytes()));

      new io.onceport.activity.operator.OperatorRegistry(gateway.data).rotate(OperatorKey.generate("carol"));
      assertEquals(401, decode(gateway, body, carol.codecToken()).statusCode(), "a rotated key's token no longer works");
    }
  }

  private static HttpResponse<String> decode(GatewayHarness gateway, String body, String token) throws Exception {
    return HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.frontend.port() + "/codec/decode"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
