package io.onceport.app.demo;

import static io.onceport.app.demo.DemoTarget.error;
import static io.onceport.app.demo.DemoTarget.errorBody;
import static io.onceport.app.demo.DemoTarget.parseObject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.demo.DemoTarget.Handling;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@link DemoTarget}'s releases API: releases, their Idempotency-Keys and stored responses,
 * notifications, and the keys whose requests are still being handled (what the status endpoint
 * answers 202 for). All state is guarded by this.
 */
final class Releases {
  private static final String DEFAULT_REGION = "us-east-1";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, ObjectNode> releases = new LinkedHashMap<>();
  private final Map<String, ObjectNode> releasesByKey = new HashMap<>();
  private final Map<String, Stored> responsesByKey = new HashMap<>();
  private final Set<String> processingKeys = new HashSet<>();
  private int releaseSeq;
  private int notificationSeq;

  private record Stored(JsonNode request, int status, String body, String location) {}

  Reply route(String method, String path, String key, String body) {
    if (path.equals("/v1/releases")) {
      return switch (method) {
        case "POST" -> createRelease(key, body);
        case "GET" -> listReleases();
        default -> error(405, "method " + method + " not allowed on " + path);
      };
    }
    if (path.equals("/v1/notifications")) {
      return method.equals("POST") ? notify(body) : error(405, "method " + method + " not allowed on " + path);
    }
    if (path.startsWith("/v1/releases/by-key/") && method.equals("GET")) {
      return releaseByKey(path.substring("/v1/releases/by-key/".length()));
    }
    if (path.startsWith("/v1/releases/") && method.equals("GET")) {
      return releaseById(path.substring("/v1/releases/".length()));
    }
    return error(404, "no route for " + method + " " + path);
  }
  synchronized boolean beginProcessing(String key) {
    return processingKeys.add(key);
  }
  synchronized void endProcessing(String key) {
    processingKeys.remove(key);
  }
  synchronized Reply createRelease(String key, String body) {
    JsonNode request = parseObject(body);
    if (request == null) {
      return error(400, "body must be a JSON object");
    }
    if (!request.path("service").isTextual() || !request.path("version").isTextual()) {
      return error(400, "service and version are required strings");
    }
    if (request.has("region") && !request.get("region").isTextual()) {
      return error(400, "region must be a string");
    }
    if (key != null) {
      Stored stored = responsesByKey.get(key);
      if (stored != null) {
        if (!stored.request().equals(request)) {
          return error(422, "Idempotency-Key " + key + " was used with a different request body");
        }
        return new Reply(stored.status(), stored.body(), stored.location(), true, Handling.REPLAYED);
      }
    }
    String id = "rel_" + (++releaseSeq);
    ObjectNode release = JSON.createObjectNode();
    release.put("id", id);
    release.put("service", request.get("service").textValue());
    release.put("version", request.get("version").textValue());
    release.put("region", request.path("region").asText(DEFAULT_REGION));
    release.put("key", key);
    releases.put(id, release);
    String location = "/v1/releases/" + id;
    if (key != null) {
      releasesByKey.put(key, release);
      responsesByKey.put(key, new Stored(request, 201, release.toString(), location));
    }
    return new Reply(201, release.toString(), location, false, Handling.ACTED);
  }
  synchronized Reply notify(String body) {
    JsonNode request = parseObject(body);
    if (request == null) {
      return error(400, "body must be a JSON object");
    }
    ObjectNode notification = JSON.createObjectNode();
    notification.put("id", "ntf_" + (++notificationSeq));
    notification.setAll((ObjectNode) request);
    return new Reply(201, notification.toString(), null, false, Handling.ACTED);
  }
  synchronized Reply listReleases() {
    ArrayNode list = JSON.createArrayNode();
    releases.values().forEach(list::add);
    return new Reply(200, list.toString(), null, false, Handling.READ);
  }
  synchronized Reply releaseByKey(String key) {
    ObjectNode release = releasesByKey.get(key);
    if (release != null) {
      return new Reply(200, release.toString(), null, false, Handling.READ);
    }
    if (processingKeys.contains(key)) {
      ObjectNode processing = JSON.createObjectNode();
      processing.put("state", "processing");
      processing.put("key", key);
      return new Reply(202, processing.toString(), null, false, Handling.READ);
    }
    return new Reply(404, errorBody("no release with key " + key), null, false, Handling.READ);
  }
  synchronized Reply releaseById(String id) {
    ObjectNode release = releases.get(id);
    return release == null
        ? new Reply(404, errorBody("no release " + id), null, false, Handling.READ)
        : new Reply(200, release.toString(), null, false, Handling.READ);
  }
}
