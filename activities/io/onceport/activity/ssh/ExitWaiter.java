package io.onceport.activity.ssh;

import static io.onceport.activity.ssh.SshChannel.target;
import static io.onceport.activity.ssh.SshChannel.unknown;

import io.onceport.activity.dispatch.DispatchContext;
import io.onceport.activity.ssh.SshChannel.Output;
import io.onceport.workflow.contract.SshSpec;
import io.onceport.workflow.dispatch.DispatchResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;
import net.schmizz.sshj.connection.channel.direct.Signal;

/**
 * Waits for a started command's exit status (a death by signal N as 128+N) while draining stdout
 * and stderr, each capped at {@link DispatchResult#BODY_CAP} bytes, so a chatty command never
 * blocks on a full channel window. The command may be running: every failure here is {@code
 * OUTCOME_UNKNOWN}.
 */
final class ExitWaiter {
  private static final long HEARTBEAT_NANOS = Duration.ofSeconds(1).toNanos();

  private ExitWaiter() {}

  /** Waits for the exit status while draining both streams; heartbeats about once a second. */
  static Output await(SSHClient client, Session.Command command, Duration timeout, DispatchContext context, SshSpec spec) {
    Capture out = Capture.start(command.getInputStream(), "ssh-stdout");
    Capture err = Capture.start(command.getErrorStream(), "ssh-stderr");
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextBeat = System.nanoTime();
    try {
      while (command.isOpen() && client.isConnected()) {
        long now = System.nanoTime();
        if (now - deadline > 0) {
          throw unknown("no exit status from " + target(spec) + " within " + timeout.toMillis() + " ms", null);
        }
        if (now - nextBeat >= 0) {
          context.heartbeat("ssh: waiting for exit status");
          nextBeat = now + HEARTBEAT_NANOS;
        }
        Thread.sleep(50);
      }
      out.join(Duration.ofSeconds(5));
      err.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unknown("interrupted while waiting for " + target(spec), e);
    }
    Integer exit = command.getExitStatus();
    if (exit == null && command.getExitSignal() != null) {
      exit = 128 + signalNumber(command.getExitSignal());
    }
    if (exit == null) {
      throw unknown("the connection to " + target(spec) + " ended before the command's exit status arrived", null);
    }
    return new Output(exit, out.text(), err.text(), out.truncated() || err.truncated());
  }

  private static int signalNumber(Signal signal) {
    switch (signal) {
      case HUP: return 1;
      case INT: return 2;
      case QUIT: return 3;
      case ILL: return 4;
      case ABRT: return 6;
      case FPE: return 8;
      case KILL: return 9;
      case USR1: return 10;
      case SEGV: return 11;
      case USR2: return 12;
      case PIPE: return 13;
      case ALRM: return 14;
      case TERM: return 15;
      default: return 127;
    }
  }

  /** Drains one stream on its own thread, keeping the first {@link DispatchResult#BODY_CAP} bytes. */
  private static final class Capture implements Runnable {
    private final InputStream in;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final Thread thread;
    private volatile boolean truncated;

    private Capture(InputStream in, String name) {
      this.in = in;
      this.thread = new Thread(this, name);
      thread.setDaemon(true);
    }

    static Capture start(InputStream in, String name) {
      Capture c = new Capture(in, name);
      c.thread.start();
      return c;
    }

    @Override
    public void run() {
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) != -1) {
          synchronized (kept) {
            int room = DispatchResult.BODY_CAP - kept.size();
            if (n > room) {
              truncated = true;
            }
            kept.write(buffer, 0, Math.max(0, Math.min(n, room)));
          }
        }
      } catch (IOException e) {
        // The connection ended; the exit status decides what that means.
      }
    }

    void join(Duration max) throws InterruptedException {
      thread.join(max.toMillis());
    }

    boolean truncated() {
      return truncated;
    }

    String text() {
      synchronized (kept) {
        return kept.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
