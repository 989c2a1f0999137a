package io.onceport.activity.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** A real file channel that fails writes or forces on demand: a full disk, a dying device. */
final class FailingFileChannel extends FileChannel {
  private final FileChannel delegate;
  volatile IOException writeFailure;
  volatile IOException forceFailure;
  /** Bytes a failing write still puts on disk first, like a short write before ENOSPC. */
  volatile int partialBytes;
  /** When set, forces wait for it: a slow device. */
  volatile java.util.concurrent.CountDownLatch forceGate;

  FailingFileChannel(FileChannel delegate) {
    this.delegate = delegate;
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    if (writeFailure != null) {
      if (partialBytes > 0) {
        ByteBuffer part = src.duplicate();
        part.limit(part.position() + Math.min(partialBytes, part.remaining()));
        delegate.write(part, position);
      }
      throw writeFailure;
    }
    return delegate.write(src, position);
  }

  @Override
  public void force(boolean metaData) throws IOException {
    java.util.concurrent.CountDownLatch gate = forceGate;
    if (gate != null) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted");
      }
    }
    if (forceFailure != null) {
      throw forceFailure;
    }
    delegate.force(metaData);
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
    if (writeFailure != null) {
      throw writeFailure;
    }
    return delegate.write(src);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    if (writeFailure != null) {
      throw writeFailure;
    }
    return delegate.write(srcs, offset, length);
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
  public FileChannel truncate(long size) throws IOException {
    delegate.truncate(size);
    return this;
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
