package io.onceport.frontend.temporal;

import io.onceport.frontend.gateway.GatewayException;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.ExecutionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One attach per intent per front end. While one caller's attach to an intent is in flight, every
 * other caller of the same intent (same workflow id and fingerprint) waits on it instead of sending
 * its own, and gets the same execution; their calls are recorded afterwards as evidence in one batch
 * ({@code recordCalls}). Why: Temporal admits at most 10 in-flight updates per workflow execution,
 * so a storm of identical calls each sending its own update would be turned away past the tenth;
 * here it costs the run one update (the 1,000-call storm of {@code StormEndToEndTest}: one dispatch,
 * all answered). A caller that arrives after the attach returned starts the next one.
 *
 * <p>Holds only the attaches in flight.
 */
final class IntentFlights {
  private final Map<String, Flight> flights = new ConcurrentHashMap<>();

  private static final class Flight {
    final CompletableFuture<ExecutionRecord> done = new CompletableFuture<>();
    /** Each follower's own: completed once its call was sent as evidence (its batch, not the storm's last). */
    final List<CompletableFuture<Void>> each = new ArrayList<>();
    /** Completed by the leader once the followers' calls were sent as evidence. */
    final CompletableFuture<Void> evidence = new CompletableFuture<>();
    final List<AttachRequest> followers = new ArrayList<>();
    boolean closed;
  }

  /**
   * What joining an intent's attach gave this caller.
   *
   * @param leader true when this caller made the attach itself
   * @param followers the calls that waited on this caller's attach (leader only; their evidence is owed to the run)
   * @param evidence the leader's: completes once all followers' calls were sent; a follower's:
   *     once its own call was sent (the leader completes both, {@link #evidenceSent})
   * @param position 0 for the leader; a follower's place among the followers, from 1: the order
   *     their calls are sent as evidence in
   * @param each the followers' own evidence, in their order (leader only)
   */
  record Joined(ExecutionRecord record, boolean leader, List<AttachRequest> followers, CompletableFuture<Void> evidence,
      int position, List<CompletableFuture<Void>> each) {

    /** The leader's: {@code sent} has one future per follower (in order), completed once its call was sent. */
    void evidenceSent(List<CompletableFuture<Void>> sent) {
      for (int i = 0; i < each.size(); i++) {
        CompletableFuture<Void> own = each.get(i);
        if (i < sent.size()) {
          sent.get(i).whenComplete((v, e) -> own.complete(null));
        } else {
          own.complete(null);
        }
      }
      CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> evidence.complete(null));
    }
  }

  /**
   * @param intent what makes two calls the same intent here (and wait alike)
   * @param followerWaitMillis the longest this caller waits for an attach it joins
   */
  Joined join(String intent, AttachRequest request, long followerWaitMillis, Function<AttachRequest, ExecutionRecord> attach) {
    Flight flight;
    boolean leader;
    int position = 0;
    synchronized (flights) {
      Flight current = flights.get(intent);
      if (current != null && !current.closed) {
        current.followers.add(request);
        current.each.add(new CompletableFuture<>());
        position = current.followers.size();
        flight = current;
        leader = false;
      } else {
        flight = new Flight();
        flights.put(intent, flight);
        leader = true;
      }
    }
    if (!leader) {
      CompletableFuture<Void> own;
      synchronized (flights) {
        own = flight.each.get(position - 1);
      }
      return new Joined(awaitLeader(flight, followerWaitMillis), false, List.of(), own, position, List.of());
    }
    ExecutionRecord record = null;
    RuntimeException failure = null;
    try {
      record = attach.apply(request);
    } catch (RuntimeException e) {
      failure = e;
    }
    List<AttachRequest> followers;
    List<CompletableFuture<Void>> each;
    synchronized (flights) {
      flight.closed = true;
      flights.remove(intent, flight);
      followers = List.copyOf(flight.followers);
      each = List.copyOf(flight.each);
    }
    if (failure != null) {
      flight.evidence.complete(null);
      each.forEach(f -> f.complete(null));
      flight.done.completeExceptionally(failure);
      throw failure;
    }
    flight.done.complete(record);
    return new Joined(record, true, followers, flight.evidence, 0, each);
  }

  private static ExecutionRecord awaitLeader(Flight flight, long followerWaitMillis) {
    try {
      return flight.done.get(followerWaitMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re; // the same answer the leader got: busy, a refused intent key, unavailable
      }
      throw new GatewayException(GatewayException.Kind.UNAVAILABLE, "the attach this call joined failed: " + e.getCause(), e);
    } catch (TimeoutException e) {
      throw new GatewayException(GatewayException.Kind.UNAVAILABLE,
          "the execution layer did not answer within " + followerWaitMillis + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GatewayException(GatewayException.Kind.UNAVAILABLE, "interrupted while waiting for the execution layer", e);
    }
  }

  /** Callers waiting on the attach in flight for {@code intent} (0 when none is in flight). */
  int followers(String intent) {
    synchronized (flights) {
      Flight f = flights.get(intent);
      return f == null ? 0 : f.followers.size();
    }
  }

  int inFlight() {
    return flights.size();
  }
}
