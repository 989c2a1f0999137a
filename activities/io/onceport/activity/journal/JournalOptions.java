package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/** How a {@link Journal} segment is opened. Build with {@link #newBuilder(Path, String, NoteSigner)}. */
public final class JournalOptions {
  /** Opens the segment file; replaceable so tests can inject a failing channel (full disk). */
  @FunctionalInterface
  public interface ChannelOpener {
    FileChannel open(Path segment) throws IOException;
  }

  static final ChannelOpener DEFAULT_OPENER = p -> io.onceport.shared.files.PrivateFiles.open(p,
      StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE); // a new segment is 0600

  private final Path dir;
  private final String writerId;
  private final NoteSigner signer;
  private final boolean fsync;
  private final int checkpointEvery;
  private final Duration checkpointInterval;
  private final ChannelOpener opener;
  private final Clock clock;
  private final int keyWindow;

  /** Default idempotence window: the last 65,536 entries (1.5 MB of index, allocated once). */
  public static final int DEFAULT_KEY_WINDOW = 1 << 16;

  private JournalOptions(Builder b) {
    this.dir = b.dir;
    this.writerId = b.writerId;
    this.signer = b.signer;
    this.fsync = b.fsync;
    this.checkpointEvery = b.checkpointEvery;
    this.checkpointInterval = b.checkpointInterval;
    this.opener = b.opener;
    this.clock = b.clock;
    this.keyWindow = b.keyWindow;
  }

  /**
   * @param dir the journal directory, e.g. {@code <data>/journal/activity}; its last path element
   *     names the journal
   * @param writerId this process's segment name: letters, digits, '.', '_' and '-'
   */
  public static Builder newBuilder(Path dir, String writerId, NoteSigner signer) {
    return new Builder(dir, writerId, signer);
  }

  public Path dir() { return dir; }
  public String writerId() { return writerId; }
  public NoteSigner signer() { return signer; }
  public boolean fsync() { return fsync; }
  public int checkpointEvery() { return checkpointEvery; }
  public Duration checkpointInterval() { return checkpointInterval; }
  public ChannelOpener opener() { return opener; }
  public Clock clock() { return clock; }
  /** How many of the latest entries an append's key is checked against (see {@link Journal}). */
  public int keyWindow() { return keyWindow; }

  /** The journal name: the directory's last element ("activity", "sessions"). */
  public String journalName() {
    return dir.getFileName().toString();
  }

  /** The checkpoint origin line: {@code onceport/<writer-id>/<journal>}. */
  public String origin() {
    return origin(writerId, journalName());
  }

  static String origin(String writerId, String journal) {
    return "onceport/" + writerId + "/" + journal;
  }

  public static final class Builder {
    private final Path dir;
    private final String writerId;
    private final NoteSigner signer;
    private boolean fsync = true;
    private int checkpointEvery = 1000;
    private Duration checkpointInterval = Duration.ofSeconds(10);
    private ChannelOpener opener = DEFAULT_OPENER;
    private Clock clock = Clock.systemUTC();
    private int keyWindow = DEFAULT_KEY_WINDOW;

    private Builder(Path dir, String writerId, NoteSigner signer) {
      this.dir = Objects.requireNonNull(dir, "dir == null").toAbsolutePath();
      this.writerId = Objects.requireNonNull(writerId, "writerId == null");
      this.signer = Objects.requireNonNull(signer, "signer == null");
      if (!writerId.matches("[A-Za-z0-9._-]{1,64}") || writerId.startsWith(".")) {
        throw new IllegalArgumentException("Invalid writer id: " + writerId);
      }
      if (dir.getFileName() == null) {
        throw new IllegalArgumentException("Invalid journal dir: " + dir);
      }
    }

    /** Disables fsync. Only for the throughput comparison: appends are then not durable. */
    public Builder setFsync(boolean fsync) {
      this.fsync = fsync;
      return this;
    }

    /** Signs a checkpoint after this many new entries (0 disables). */
    public Builder setCheckpointEvery(int entries) {
      if (entries < 0) {
        throw new IllegalArgumentException("Invalid checkpoint interval: " + entries + " entries");
      }
      this.checkpointEvery = entries;
      return this;
    }

    /** Signs a checkpoint this often when the journal grew (zero disables). */
    public Builder setCheckpointInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval == null");
      if (interval.isNegative()) {
        throw new IllegalArgumentException("Invalid checkpoint interval: " + interval);
      }
      this.checkpointInterval = interval;
      return this;
    }

    public Builder setChannelOpener(ChannelOpener opener) {
      this.opener = Objects.requireNonNull(opener, "opener == null");
      return this;
    }

    public Builder setClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock == null");
      return this;
    }

    /**
     * Sets the idempotence window: an append finds an earlier entry with its key only among this
     * many latest entries. A power of two; memory is 24 bytes per entry, allocated on open.
     */
    public Builder setKeyWindow(int entries) {
      if (entries < 1 || Integer.bitCount(entries) != 1 || entries > (1 << 29)) {
        throw new IllegalArgumentException("Invalid key window: " + entries + " entries (a power of two)");
      }
      this.keyWindow = entries;
      return this;
    }

    public JournalOptions build() {
      return new JournalOptions(this);
    }
  }
}
