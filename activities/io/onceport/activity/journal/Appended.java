package io.onceport.activity.journal;

import java.util.Objects;

/**
 * The result of an append: where the entry sits in the segment.
 *
 * @param existing true when an entry with the same append key was already in the segment and no
 *     new entry was written
 */
public record Appended(long seq, String hash, boolean existing) {
  public Appended {
    Objects.requireNonNull(hash, "hash == null");
  }
}
