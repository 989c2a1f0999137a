package io.onceport.app.demo;

import static io.onceport.app.demo.DemoTarget.error;
import static io.onceport.app.demo.DemoTarget.errorBody;
import static io.onceport.app.demo.DemoTarget.parseObject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.onceport.app.demo.DemoTarget.Handling;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@link DemoTarget}'s credential API: one active key per service, rotations and their
 * Idempotency-Keys, and rotations armed to take effect late or never. It exists to show the
 * incident the design essay names — "rotating a credential twice may lock out a service" — and
 * what an execution kept until its effect is verified ({@code attach_window: until_verified})
 * does about it: the rotation's answer tells which key is new, and {@code GET …/active} tells
 * whether it took effect. All state is guarded by this.
 *
 * <ul>
 *   <li>{@code POST /v1/credentials/{service}/rotate} (body: a JSON object or nothing) makes a new
 *       key and answers 200 {@code {service, old_key_id, new_key_id}}. Keys of a service are
 *       {@code <service>-key-<n>}; {@code <service>-key-1} is active before any rotation. With an
 *       {@code Idempotency-Key} the same key and body replay the stored answer ({@code
 *       Idempotent-Replayed: true}, no new rotation); the same key with another service or body is
 *       422; while a request with it is being handled, 409. While an earlier rotation of the
 *       service is still being applied ({@code apply-late}), 409 and nothing is done.
 *   <li>{@code GET /v1/credentials/{service}/active}: 200 {@code {service, key_id, since}}; 202
 *       {@code {service, state: "rotating"}} while a rotation is being applied.
 *   <li>{@code GET /v1/credentials/{service}/rotations/by-key/{key}} (a status endpoint): 200 with
 *       the rotation made under that key ({@code applied} says whether it took effect yet), 202
 *       while a request with that key is being handled, 404 when none was made.
 * </ul>
 *
 * <p>Two faults apply only to a rotation ({@link DemoTarget#FAULTS}): {@code apply-late=MS}
 * answers at once, but the new key becomes active only MS later (meanwhile {@code active} answers
 * 202); {@code apply-never} answers {@code {old_key_id, new_key_id}} but the old key stays active
 * (the rotation was lost behind the API), so {@code active} keeps naming the old one.
 */
final class Credentials {
  static final String PREFIX = "/v1/credentials/";
  private static final Pattern ROUTE =
      Pattern.compile("/v1/credentials/([A-Za-z0-9._-]{1,64})/(rotate|active|rotations/by-key/([^/]{1,200}))");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LongSupplier clock;
  private final Map<String, Service> services = new HashMap<>();
  private final Map<String, Stored> responsesByKey = new HashMap<>();
  private final Map<String, Rotation> rotationsByKey = new HashMap<>();
  private final Set<String> processingKeys = new HashSet<>();

  /** One rotation: old and new key, and when the new key becomes active (-1: never). */
  private static final class Rotation {
    final String service;
    final String oldKey;
    final String newKey;
    final String at;
    final long applyAtMillis;
    boolean applied;

    Rotation(String service, String oldKey, String newKey, String at, long applyAtMillis) {
      this.service = service;
      this.oldKey = oldKey;
      this.newKey = newKey;
      this.at = at;
      this.applyAtMillis = applyAtMillis;
    }
  }

  private static final class Service {
    String active;
    String since;
    int keys = 1;
    /** A rotation taking effect late ({@code apply-late}), or null. */
    Rotation pending;
  }

  private record Stored(String service, JsonNode request, String body) {}

  Credentials(LongSupplier clock) {
    this.clock = clock;
  }

  /** True for {@code POST /v1/credentials/{service}/rotate} (any service name): the only credential action. */
  static boolean isRotate(String method, String path) {
    return method.equals("POST") && path.startsWith(PREFIX) && path.endsWith("/rotate");
  }

  Reply route(String method, String path, String key, String body, Fault fault) {
    Matcher m = ROUTE.matcher(path);
    if (!m.matches()) {
      return path.startsWith(PREFIX) && path.endsWith("/rotate")
          ? error(400, "service names are 1-64 of A-Z a-z 0-9 . _ -")
          : error(404, "no route for " + method + " " + path);
    }
    String service = m.group(1);
    String what = m.group(2);
    if (what.equals("rotate")) {
      return method.equals("POST") ? rotate(service, key, body, fault) : error(405, "method " + method + " not allowed on " + path);
    }
    if (!method.equals("GET")) {
      return error(405, "method " + method + " not allowed on " + path);
    }
    return what.equals("active") ? active(service) : rotationByKey(service, m.group(3));
  }

  synchronized boolean beginProcessing(String key) {
    return processingKeys.add(key);
  }

  synchronized void endProcessing(String key) {
    processingKeys.remove(key);
  }

  private synchronized Reply rotate(String service, String key, String body, Fault fault) {
    JsonNode request = body.isBlank() ? JSON.createObjectNode() : parseObject(body);
    if (request == null) {
      return error(400, "body must be a JSON object (or empty)");
    }
    if (key != null) {
      Stored stored = responsesByKey.get(key);
      if (stored != null) {
        if (!stored.service().equals(service) || !stored.request().equals(request)) {
          return error(422, "Idempotency-Key " + key + " was used with a different request (service " + stored.service() + ")");
        }
        return new Reply(200, stored.body(), null, true, Handling.REPLAYED);
      }
    }
    Service s = service(service);
    if (s.pending != null) {
      return error(409, "a rotation of " + service + " is still being applied (new key " + s.pending.newKey + "); nothing was done");
    }
    String newKey = service + "-key-" + (++s.keys);
    long now = clock.getAsLong();
    long applyAt = fault == null ? now : fault.applyNever() ? -1 : now + fault.applyLateMillis();
    Rotation rotation = new Rotation(service, s.active, newKey, Instant.ofEpochMilli(now).toString(), applyAt);
    if (applyAt == now) {
      apply(s, rotation);
    } else if (applyAt > now) {
      s.pending = rotation;
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("service", service);
    answer.put("old_key_id", rotation.oldKey);
    answer.put("new_key_id", newKey);
    if (key != null) {
      responsesByKey.put(key, new Stored(service, request, answer.toString()));
      rotationsByKey.put(key, rotation);
    }
    return new Reply(200, answer.toString(), null, false, Handling.ACTED);
  }

  private synchronized Reply active(String service) {
    Service s = service(service);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("service", service);
    if (s.pending != null) {
      answer.put("state", "rotating");
      return new Reply(202, answer.toString(), null, false, Handling.READ);
    }
    answer.put("key_id", s.active);
    answer.put("since", s.since);
    return new Reply(200, answer.toString(), null, false, Handling.READ);
  }

  private synchronized Reply rotationByKey(String service, String key) {
    Rotation r = rotationsByKey.get(key);
    if (r != null && r.service.equals(service)) {
      service(service); // applies a late rotation that is due
      ObjectNode answer = JSON.createObjectNode();
      answer.put("service", service);
      answer.put("old_key_id", r.oldKey);
      answer.put("new_key_id", r.newKey);
      answer.put("rotated_at", r.at);
      answer.put("applied", r.applied);
      answer.put("key", key);
      return new Reply(200, answer.toString(), null, false, Handling.READ);
    }
    if (processingKeys.contains(key)) {
      ObjectNode processing = JSON.createObjectNode();
      processing.put("state", "processing");
      processing.put("key", key);
      return new Reply(202, processing.toString(), null, false, Handling.READ);
    }
    return new Reply(404, errorBody("no rotation of " + service + " with key " + key), null, false, Handling.READ);
  }

  /** The service (made on first use, with its first key active), with a late rotation applied once it is due. */
  private Service service(String name) {
    Service s = services.computeIfAbsent(name, n -> {
      Service made = new Service();
      made.active = n + "-key-1";
      made.since = Instant.ofEpochMilli(clock.getAsLong()).toString();
      return made;
    });
    if (s.pending != null && clock.getAsLong() >= s.pending.applyAtMillis) {
      Rotation due = s.pending;
      s.pending = null;
      apply(s, due);
    }
    return s;
  }

  private void apply(Service s, Rotation rotation) {
    s.active = rotation.newKey;
    s.since = Instant.ofEpochMilli(Math.max(rotation.applyAtMillis, 0)).toString();
    rotation.applied = true;
  }
}
