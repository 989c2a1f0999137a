package io.onceport.frontend.gateway;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A map bounded in size and in age, for the front end's caches and registries: a serve that runs
 * all week must not grow with every execution it ever saw. An entry lives until it was neither read
 * nor written for {@code maxAge}, or until it is the least recently used one when the map is full.
 * Forgetting an entry is always safe for its users: they fall back to asking Temporal.
 *
 * <p>Optionally two ages: an entry whose value is <b>settled</b> (a closed run, a delivered
 * execution — what the map's owner says with a predicate) is needed only for a short while after
 * its last use, so it is held for {@code settledAge} instead of {@code maxAge}. Without this, every
 * execution that ever went through the front end stays for {@code maxAge} (or until the size bound
 * pushes it out), so memory grows with the call rate × {@code maxAge} up to the size bound — a
 * slope, not a flat line, for the first {@code maxSize} calls. With it, what is kept is the open
 * entries plus the call rate × {@code settledAge}. The predicate is evaluated on every write of an
 * entry; a value that becomes settled in place is re-classified by writing it again
 * ({@code compute(key, (k, v) -> v)}). The size bound pushes out settled entries before open ones.
 *
 * <p>Settled entries can also be bounded in number ({@code maxSettled}): then what is kept is the
 * open entries plus at most that many settled ones, the most recently used — independent of the
 * call rate, where the settled age alone keeps the call rate × {@code settledAge}. A settled entry
 * pushed out by that bound is reported by {@link #evictedBySizeSince} to whoever used it after the
 * given time (see there).
 *
 * <p>Thread-safe (one lock); every operation is O(1) amortized.
 */
public final class BoundedMap<K, V> {
  private final int maxSize;
  private final int maxSettled;
  private final long maxAgeNanos;
  private final long settledAgeNanos;
  private final Predicate<? super V> settled;
  private final LongSupplier clock;
  /** Entries not settled (or all, without a settled predicate); access order, so the head is the eldest. */
  private final LinkedHashMap<K, Slot<V>> live = new LinkedHashMap<>(16, 0.75f, true);
  /** Settled entries, held for the shorter age; access order. */
  private final LinkedHashMap<K, Slot<V>> held = new LinkedHashMap<>(16, 0.75f, true);
  private long sizeEvictions;
  private long lastSizeEvictionNanos;
  private long settledEvictions;
  /** The latest last use of a settled entry the settled bound pushed out (valid when {@link #settledEvictions} > 0). */
  private long lastSettledEvictedTouched;

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
    this(maxSize, maxAge, maxAge, v -> false, clock);
  }

  /**
   * @param settledAge how long a settled entry is held after its last use (at most {@code maxAge})
   * @param settled which values are settled (evaluated under the map's lock on every write: keep it cheap)
   */
  public BoundedMap(int maxSize, Duration maxAge, Duration settledAge, Predicate<? super V> settled) {
    this(maxSize, maxAge, settledAge, settled, System::nanoTime);
  }

  /** @param clock monotonic nanoseconds, for tests */
  public BoundedMap(int maxSize, Duration maxAge, Duration settledAge, Predicate<? super V> settled, LongSupplier clock) {
    this(maxSize, maxSize, maxAge, settledAge, settled, clock);
  }

  /**
   * @param maxSettled at most this many settled entries are held (the least recently used go first)
   * @param clock monotonic nanoseconds, for tests
   */
  public BoundedMap(int maxSize, int maxSettled, Duration maxAge, Duration settledAge, Predicate<? super V> settled,
      LongSupplier clock) {
    if (maxSize < 1) {
      throw new IllegalArgumentException("Invalid maximum size: " + maxSize);
    }
    if (maxSettled < 1 || maxSettled > maxSize) {
      throw new IllegalArgumentException("Invalid maximum of settled entries: " + maxSettled + " (1 to " + maxSize + ")");
    }
    Objects.requireNonNull(maxAge, "maxAge == null");
    if (maxAge.isZero() || maxAge.isNegative()) {
      throw new IllegalArgumentException("Invalid maximum age: " + maxAge);
    }
    Objects.requireNonNull(settledAge, "settledAge == null");
    if (settledAge.isZero() || settledAge.isNegative() || settledAge.compareTo(maxAge) > 0) {
      throw new IllegalArgumentException("Invalid settled age: " + settledAge + " (must be positive and at most " + maxAge + ")");
    }
    this.maxSize = maxSize;
    this.maxSettled = maxSettled;
    this.maxAgeNanos = maxAge.toNanos();
    this.settledAgeNanos = settledAge.toNanos();
    this.settled = Objects.requireNonNull(settled, "settled == null");
    this.clock = Objects.requireNonNull(clock, "clock == null");
  }

  /** The value, or null when absent or expired; a hit counts as a use. */
  public synchronized V get(K key) {
    long now = clock.getAsLong();
    evict(now);
    Slot<V> s = slot(key);
    if (s == null) {
      return null;
    }
    s.touched = now;
    return s.value;
  }

  public synchronized void put(K key, V value) {
    Objects.requireNonNull(value, "value == null");
    long now = clock.getAsLong();
    store(key, value, now);
    evict(now);
  }

  /**
   * Replaces the value with {@code f(key, current)} (current is null when absent or expired); a null
   * result removes the entry. Returns the new value.
   */
  public synchronized V compute(K key, BiFunction<K, V, V> f) {
    long now = clock.getAsLong();
    evict(now);
    Slot<V> s = slot(key);
    V next = f.apply(key, s == null ? null : s.value);
    if (next == null) {
      remove(key);
    } else {
      store(key, next, now);
    }
    evict(now);
    return next;
  }

  public synchronized V remove(K key) {
    Slot<V> s = live.remove(key);
    if (s == null) {
      s = held.remove(key);
    }
    return s == null ? null : s.value;
  }

  /** Entries that are neither expired nor evicted. */
  public synchronized int size() {
    evict(clock.getAsLong());
    return live.size() + held.size();
  }

  /** Entries held as settled (neither expired nor evicted). */
  public synchronized int settledSize() {
    evict(clock.getAsLong());
    return held.size();
  }

  /**
   * True when an entry may be gone before its age was up that someone who last looked at
   * {@code sinceNanos} (on this map's clock) could still need: the size bound pushed an entry out at
   * or after that time, or the settled bound pushed out a settled entry that was used (written or
   * read) at or after it. A settled entry last used before {@code sinceNanos} was settled already
   * then, so its loss tells nothing new to such a caller.
   */
  public synchronized boolean evictedBySizeSince(long sinceNanos) {
    return sizeEvictions > 0 && lastSizeEvictionNanos - sinceNanos >= 0
        || settledEvictions > 0 && lastSettledEvictedTouched - sinceNanos >= 0;
  }

  public int maxSize() {
    return maxSize;
  }

  public Duration maxAge() {
    return Duration.ofNanos(maxAgeNanos);
  }

  public Duration settledAge() {
    return Duration.ofNanos(settledAgeNanos);
  }

  private Slot<V> slot(K key) {
    Slot<V> s = live.get(key);
    return s != null ? s : held.get(key);
  }

  /** Writes the value into the tier its classification names (moving it if it changed), as the most recent use. */
  private void store(K key, V value, long now) {
    LinkedHashMap<K, Slot<V>> into = settled.test(value) ? held : live;
    LinkedHashMap<K, Slot<V>> other = into == held ? live : held;
    Slot<V> s = other.remove(key);
    if (s == null) {
      s = into.get(key); // an access: moves it to the tail
    }
    if (s == null) {
      into.put(key, new Slot<>(value, now));
      return;
    }
    s.value = value;
    s.touched = now;
    into.put(key, s);
  }

  /** Both tiers are in access order, each with one age, so expiry and the bounds trim each from its head; size takes settled entries first. */
  private void evict(long now) {
    expire(held, now, settledAgeNanos);
    expire(live, now, maxAgeNanos);
    while (held.size() > maxSettled) {
      Iterator<Map.Entry<K, Slot<V>>> it = held.entrySet().iterator();
      long touched = it.next().getValue().touched;
      it.remove();
      if (settledEvictions++ == 0 || touched - lastSettledEvictedTouched > 0) {
        lastSettledEvictedTouched = touched;
      }
    }
    while (live.size() + held.size() > maxSize) {
      Iterator<Map.Entry<K, Slot<V>>> it = (held.isEmpty() ? live : held).entrySet().iterator();
      it.next();
      it.remove();
      sizeEvictions++;
      lastSizeEvictionNanos = now;
    }
  }

  private static <K, V> void expire(LinkedHashMap<K, Slot<V>> tier, long now, long ageNanos) {
    Iterator<Map.Entry<K, Slot<V>>> it = tier.entrySet().iterator();
    while (it.hasNext()) {
      if (now - it.next().getValue().touched > ageNanos) {
        it.remove();
      } else {
        break;
      }
    }
  }
}
