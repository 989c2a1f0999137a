package io.onceport.frontend.gateway;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

/**
 * A map bounded in size and in age, for the front end's caches and registries: a serve that runs
 * all week must not grow with every execution it ever saw. An entry lives until it was neither read
 * nor written for {@code maxAge}, or until it is the least recently used one when the map is full.
 * Forgetting an entry is always safe for its users: they fall back to asking Temporal.
 *
 * <p>Thread-safe (one lock); every operation is O(1) amortized.
 */
public final class BoundedMap<K, V> {
  private final int maxSize;
  private final long maxAgeNanos;
  private final LongSupplier clock;
  private final LinkedHashMap<K, Slot<V>> map = new LinkedHashMap<>(16, 0.75f, true);

  private static final class Slot<V> {
    V value;
    long touched;

    Slot(V value, long touched) {
      this.value = value;
      this.touched = touched;
    }
  }

  public BoundedMap(int maxSize, Duration maxAge) {
    this(maxSize, maxAge, System::nanoTime);
  }

  /** @param clock monotonic nanoseconds, for tests */
  public BoundedMap(int maxSize, Duration maxAge, LongSupplier clock) {
    if (maxSize < 1) {
      throw new IllegalArgumentException("Invalid maximum size: " + maxSize);
    }
    Objects.requireNonNull(maxAge, "maxAge == null");
    if (maxAge.isZero() || maxAge.isNegative()) {
      throw new IllegalArgumentException("Invalid maximum age: " + maxAge);
    }
    this.maxSize = maxSize;
    this.maxAgeNanos = maxAge.toNanos();
    this.clock = Objects.requireNonNull(clock, "clock == null");
  }

  /** The value, or null when absent or expired; a hit counts as a use. */
  public synchronized V get(K key) {
    long now = clock.getAsLong();
    evict(now);
    Slot<V> s = map.get(key);
    if (s == null) {
      return null;
    }
    s.touched = now;
    return s.value;
  }

  public synchronized void put(K key, V value) {
    Objects.requireNonNull(value, "value == null");
    long now = clock.getAsLong();
    Slot<V> s = map.get(key);
    if (s == null) {
      map.put(key, new Slot<>(value, now));
    } else {
      s.value = value;
      s.touched = now;
    }
    evict(now);
  }

  /**
   * Replaces the value with {@code f(key, current)} (current is null when absent or expired); a null
   * result removes the entry. Returns the new value.
   */
  public synchronized V compute(K key, BiFunction<K, V, V> f) {
    long now = clock.getAsLong();
    evict(now);
    Slot<V> s = map.get(key);
    V next = f.apply(key, s == null ? null : s.value);
    if (next == null) {
      map.remove(key);
    } else if (s == null) {
      map.put(key, new Slot<>(next, now));
    } else {
      s.value = next;
      s.touched = now;
    }
    evict(now);
    return next;
  }

  public synchronized V remove(K key) {
    Slot<V> s = map.remove(key);
    return s == null ? null : s.value;
  }

  /** Entries that are neither expired nor evicted. */
  public synchronized int size() {
    evict(clock.getAsLong());
    return map.size();
  }

  public int maxSize() {
    return maxSize;
  }

  public Duration maxAge() {
    return Duration.ofNanos(maxAgeNanos);
  }

  /** Access order: the eldest entry is the least recently used, so expiry and size both trim from the head. */
  private void evict(long now) {
    Iterator<Map.Entry<K, Slot<V>>> it = map.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<K, Slot<V>> eldest = it.next();
      if (map.size() > maxSize || now - eldest.getValue().touched > maxAgeNanos) {
        it.remove();
      } else {
        break;
      }
    }
  }
}
