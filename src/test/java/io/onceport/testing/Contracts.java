package io.onceport.testing;

import io.onceport.workflow.contract.HttpSpec;
import io.onceport.workflow.contract.ReplayClass;
import io.onceport.workflow.contract.ReplaySpec;
import io.onceport.workflow.contract.StatusSpec;
import io.onceport.workflow.contract.ToolContract;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Contract records for tests, built directly (the YAML loader has its own tests). */
public final class Contracts {
  private Contracts() {}

  public static final String RELEASE_SCHEMA = """
      {"type":"object","required":["service","version"],
       "properties":{"service":{"type":"string"},"version":{"type":"string"},
                     "region":{"type":"string","default":"us-east-1"}},
       "additionalProperties":false}""";

  public static ToolContract http(String tool, ReplayClass replay, String baseUrl, Duration attachWindow) {
    return http(tool, replay, baseUrl, attachWindow, replay.defaultDedupeAfterDelivery());
  }

  /** As above with the late-arrival tail given: recordings in real time use the shortest one. */
  public static ToolContract http(String tool, ReplayClass replay, String baseUrl, Duration attachWindow, Duration tail) {
    StatusSpec status = replay == ReplayClass.STATUS_QUERY
        ? new StatusSpec("GET", baseUrl + "/v1/releases/by-key/{{execution_id}}", List.of(200), List.of(404))
        : null;
    return new ToolContract(
        tool, "test tool " + tool, RELEASE_SCHEMA, null, ToolContract.Channel.HTTP,
        new HttpSpec("POST", baseUrl + "/v1/releases", null, Map.of(), "Idempotency-Key", null, 5_000),
        null, new ReplaySpec(replay, attachWindow, status, tail), List.of(), List.of());
  }

  /**
   * {@code deploy_approved.yaml}: a release whose credential {@code deploy} an operator approves for
   * each use, at {@code baseUrl} (the demo target's URL).
   */
  public static String deployApprovedYaml(String baseUrl) {
    return """
      tool: deploy_approved
      description: Deploy with a credential an operator approves for each use.
      input_schema:
        type: object
        required: [service, version]
        properties:
          service: {type: string}
          version: {type: string}
        additionalProperties: false
      channel: http
      http:
        method: POST
        url: %s/v1/releases
        idempotency_header: Idempotency-Key
        credential: deploy
      replay:
        class: idempotency_key
        attach_window: PT1H
      """.formatted(baseUrl);
  }
}
