package io.onceport.activity.journal;

import io.onceport.activity.dispatch.DispatchJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The journals of one process in a data dir: {@code <data>/journal/activity/<writer-id>.jsonl} and
 * {@code <data>/journal/sessions/<writer-id>.jsonl}, signed with the key in {@code <data>/keys/}.
 * Open once per process (the writer id must be unique among processes sharing the data dir), hand
 * {@link #activities()} to the worker and {@link #dispatchJournal()} to the dispatch activities,
 * and close on shutdown.
 */
public final class Journals implements AutoCloseable {
  public static final String ACTIVITY = "activity";
  public static final String SESSIONS = "sessions";
  public static final String KEY_NAME = "onceport-journal";

  private final NoteSigner signer;
  private final Journal activity;
  private final Journal sessions;
  private final SendLedger ledger;

  private Journals(NoteSigner signer, Journal activity, Journal sessions, SendLedger ledger) {
    this.signer = signer;
    this.activity = activity;
    this.sessions = sessions;
    this.ledger = ledger;
  }

  /** Opens both journals with durable (fsync) appends and default checkpoint intervals. */
  public static Journals open(Path dataDir, String writerId) {
    return open(dataDir, writerId, UnaryOperator.identity());
  }

  /** As {@link #open(Path, String)}, with a hook to adjust each journal's options. */
  public static Journals open(Path dataDir, String writerId,
      UnaryOperator<JournalOptions.Builder> customize) {
    Objects.requireNonNull(dataDir, "dataDir == null");
    Objects.requireNonNull(writerId, "writerId == null");
    NoteSigner signer;
    try {
      signer = JournalKeys.loadOrCreate(dataDir, KEY_NAME);
    } catch (IOException e) {
      throw new JournalException("journal key in " + dataDir.resolve("keys") + " unavailable: "
          + e.getMessage(), e);
    }
    Journal activity = Journal.open(customize.apply(
        JournalOptions.newBuilder(journalDir(dataDir, ACTIVITY), writerId, signer)).build());
    Journal sessions = null;
    try {
      sessions = Journal.open(customize.apply(
          JournalOptions.newBuilder(journalDir(dataDir, SESSIONS), writerId, signer)).build());
      return new Journals(signer, activity, sessions, SendLedger.open(journalDir(dataDir, ACTIVITY)));
    } catch (RuntimeException e) {
      if (sessions != null) {
        sessions.close();
      }
      activity.close();
      throw e;
    }
  }

  public static Path journalDir(Path dataDir, String journal) {
    return dataDir.resolve("journal").resolve(journal);
  }

  /** A writer id from the host name, for single-worker-per-host deployments. */
  public static String defaultWriterId() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        host = "local";
      }
    }
    String id = host.replaceAll("[^A-Za-z0-9._-]", "-");
    return id.isEmpty() || id.startsWith(".") ? "local" : id.substring(0, Math.min(64, id.length()));
  }

  public NoteSigner signer() {
    return signer;
  }

  public Journal activity() {
    return activity;
  }

  public Journal sessions() {
    return sessions;
  }

  /** The Temporal activity implementation to register on the worker. */
  public JournalActivitiesImpl activities() {
    return new JournalActivitiesImpl(activity);
  }

  /** The send ledger of the activity journal's directory (every writer's segment). */
  public SendLedger ledger() {
    return ledger;
  }

  /** The hook the dispatch activities call right before sending. */
  public DispatchJournal dispatchJournal() {
    return new JournalDispatchJournal(activity, ledger);
  }

  @Override
  public void close() {
    try {
      sessions.close();
    } finally {
      try {
        activity.close();
      } finally {
        ledger.close();
      }
    }
  }
}
