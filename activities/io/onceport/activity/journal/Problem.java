package io.onceport.activity.journal;

/**
 * The first thing wrong with a journal segment: an entry (its sequence position and byte offset)
 * or a checkpoint file.
 *
 * @param seq the sequence number that belongs at the bad position, or -1 for a checkpoint problem
 * @param offset byte offset of the bad line in the segment, or -1
 * @param checkpoint the checkpoint file name for a checkpoint problem, or null
 */
public record Problem(long seq, long offset, String checkpoint, String reason) {
  public static Problem entry(long seq, long offset, String reason) {
    return new Problem(seq, offset, null, reason);
  }

  public static Problem checkpoint(String file, String reason) {
    return new Problem(-1, -1, file, reason);
  }

  /** "entry seq N at offset O: reason" or "checkpoint FILE: reason". */
  public String message() {
    return checkpoint == null
        ? "entry seq " + seq + " at offset " + offset + ": " + reason
        : "checkpoint " + checkpoint + ": " + reason;
  }
}
