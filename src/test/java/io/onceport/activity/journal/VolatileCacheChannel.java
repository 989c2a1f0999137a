package io.onceport.activity.journal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.CountDownLatch;

/**
 * A real file behind a volatile write cache, to model a machine crash: appended bytes reach the file
 * only when {@link #force} runs, forces can be held at a gate, and {@link #crash} throws the cached
 * bytes away and fails everything after it, as power loss would. The journal writes sequentially at
 * its end, so the cache is one run of bytes from the last forced offset.
 */
final class VolatileCacheChannel extends FileChannel {
  private final FileChannel delegate;
  private final ByteArrayOutputStream cache = new ByteArrayOutputStream();
  private long cacheStart = -1;
  volatile CountDownLatch forceGate;
  private volatile boolean crashed;
  volatile int forces;

  VolatileCacheChannel(FileChannel delegate) {
    this.delegate = delegate;
  }

  /** Drops what was never forced; every later write or force fails. Opens a held gate. */
  synchronized void crash() {
    crashed = true;
    cache.reset();
    CountDownLatch gate = forceGate;
    if (gate != null) {
      gate.countDown();
    }
  }

  @Override
  public synchronized int write(ByteBuffer src, long position) throws IOException {
    if (crashed) {
      throw new IOException("the machine crashed");
    }
    if (cacheStart < 0) {
      cacheStart = position;
    }
    if (position != cacheStart + cache.size()) {
      throw new IOException("not an append at the end: " + position);
    }
    int n = src.remaining();
    byte[] b = new byte[n];
    src.get(b);
    cache.write(b, 0, n);
    return n;
  }

  @Override
  public void force(boolean metaData) throws IOException {
    CountDownLatch gate = forceGate;
    if (gate != null) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted");
      }
    }
    synchronized (this) {
      if (crashed) {
        throw new IOException("the machine crashed");
      }
      if (cache.size() > 0) {
        delegate.write(ByteBuffer.wrap(cache.toByteArray()), cacheStart);
        cacheStart += cache.size();
        cache.reset();
      }
      delegate.force(metaData);
      forces++;
    }
  }

  @Override
  public synchronized FileChannel truncate(long size) throws IOException {
    if (cacheStart >= 0 && size < cacheStart + cache.size()) {
      cache.reset();
      cacheStart = -1;
    }
    delegate.truncate(size);
    return this;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return delegate.read(dst);
  }

  @Override
  public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
    return delegate.read(dsts, offset, length);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    throw new IOException("positional writes only");
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    throw new IOException("positional writes only");
  }

  @Override
  public long position() throws IOException {
    return delegate.position();
  }

  @Override
  public FileChannel position(long newPosition) throws IOException {
    delegate.position(newPosition);
    return this;
  }

  @Override
  public long size() throws IOException {
    return delegate.size();
  }

  @Override
  public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
    return delegate.transferTo(position, count, target);
  }

  @Override
  public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
    throw new IOException("not supported");
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    return delegate.read(dst, position);
  }

  @Override
  public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
    return delegate.map(mode, position, size);
  }

  @Override
  public FileLock lock(long position, long size, boolean shared) throws IOException {
    return delegate.lock(position, size, shared);
  }

  @Override
  public FileLock tryLock(long position, long size, boolean shared) throws IOException {
    return delegate.tryLock(position, size, shared);
  }

  @Override
  protected void implCloseChannel() throws IOException {
    delegate.close();
  }
}
