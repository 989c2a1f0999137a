package io.onceport.activity.journal;

import java.nio.charset.StandardCharsets;

/**
 * The journal's append-key index in a fixed amount of memory: a 64-bit hash of each of the last
 * {@code capacity} entries' keys and the file offset of the entry's line, in preallocated primitive
 * arrays (a ring in append order plus an open-addressing table over it, 24 bytes per entry of
 * capacity). Adding past capacity forgets the oldest entry. A hash match is only a candidate: the
 * journal reads the line at the offset and compares the key it holds, so a hash collision can
 * never turn a new entry into an "existing" one. Not thread-safe: the journal's write lock guards it.
 */
final class RecentKeys {
  private final long[] hashes;
  private final long[] offsets;
  private final int ringMask;
  /** Ring index + 1 of the entry in each slot; 0 = empty. Twice the ring's size. */
  private final int[] table;
  private final int tableMask;
  private int head;
  private int size;

  RecentKeys(int capacity) {
    if (capacity < 1 || Integer.bitCount(capacity) != 1 || capacity > (1 << 29)) {
      throw new IllegalArgumentException("Invalid key window: " + capacity + " entries (a power of two)");
    }
    hashes = new long[capacity];
    offsets = new long[capacity];
    ringMask = capacity - 1;
    table = new int[capacity * 2];
    tableMask = table.length - 1;
  }

  int capacity() {
    return hashes.length;
  }

  int size() {
    return size;
  }

  /** 64-bit FNV-1a over the key's UTF-8 bytes, finished with the murmur3 mixer. */
  static long hash(String key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  /** Remembers an entry written at {@code offset}, forgetting the oldest one when full. */
  void add(long keyHash, long offset) {
    if (size == hashes.length) {
      removeFromTable(head);
      head = (head + 1) & ringMask;
      size--;
    }
    int idx = (head + size) & ringMask;
    hashes[idx] = keyHash;
    offsets[idx] = offset;
    size++;
    int s = home(keyHash);
    while (table[s] != 0) {
      s = (s + 1) & tableMask;
    }
    table[s] = idx + 1;
  }

  /** Offsets of remembered entries whose key hash is {@code keyHash}, newest last; usually 0 or 1. */
  long[] candidates(long keyHash) {
    long[] found = new long[0];
    for (int s = home(keyHash); table[s] != 0; s = (s + 1) & tableMask) {
      int idx = table[s] - 1;
      if (hashes[idx] == keyHash) {
        found = java.util.Arrays.copyOf(found, found.length + 1);
        found[found.length - 1] = offsets[idx];
      }
    }
    return found;
  }

  private int home(long keyHash) {
    return (int) (keyHash ^ (keyHash >>> 32)) & tableMask;
  }

  /** Removes the slot of ring index {@code idx}, shifting later slots back (linear probing). */
  private void removeFromTable(int idx) {
    int i = home(hashes[idx]);
    while (table[i] != idx + 1) {
      i = (i + 1) & tableMask;
    }
    table[i] = 0;
    for (int j = (i + 1) & tableMask; table[j] != 0; j = (j + 1) & tableMask) {
      int k = home(hashes[table[j] - 1]);
      // move j's entry into the hole at i unless its home lies cyclically in (i, j]
      boolean homeBetween = i <= j ? (k > i && k <= j) : (k > i || k <= j);
      if (!homeBetween) {
        table[i] = table[j];
        table[j] = 0;
        i = j;
      }
    }
  }
}
