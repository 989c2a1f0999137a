package io.onceport.shared.codec;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.temporal.common.converter.PayloadConverter;
import java.lang.reflect.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool of Jackson's working buffers for the process, instead of one set per thread.
 *
 * <p>Jackson 2 keeps, by default, a {@link BufferRecycler} per thread that ever read or wrote JSON —
 * about 30 KB of char and byte arrays, behind a soft reference that full collections keep while the
 * heap has room. Temporal's workflow threads are as many as the runs the worker had cached at once
 * in the last minute (the SDK keeps an idle one for a minute), and every run of a call stays cached
 * while its answer waits out the delivery grace; each of those threads writes search attributes and
 * payloads as JSON. So the buffers grew with the call rate: 78 of them after 1,000 bench calls, 179
 * after 10,000 — 3.3 MB of a 49 MB live heap. Here the mapper behind Temporal's standard payload
 * converter (which also writes search attributes and marker data) borrows from one process-wide
 * pool and gives back when done: as many buffer sets as JSON documents are being read or written at
 * one moment, whatever the number of threads. The mappers the workflow code uses on those threads
 * ({@code InBandAnswer}, {@code ExecutionInput}) name the same pool themselves.
 *
 * <p>Temporal's standard converter has no public way to reach its mapper, so {@link
 * #shareStandardConverter} reads it by reflection (the SDK 1.38 field {@code mapper}); when an SDK
 * upgrade moves it, that converter keeps per-thread buffers, with a warning — the gateway works
 * either way. {@code JsonBuffersTest} fails first.
 */
public final class JsonBuffers {
  private static final Logger log = LoggerFactory.getLogger(JsonBuffers.class);
  /**
   * Jackson's own process-wide lock-free pool: it holds as many sets as were ever in use at one
   * moment. Code under workflows/, which must not depend on this class, names it directly. Its
   * bounded pool takes a lock per borrow and return: 14 % more CPU than per-thread buffers for 16
   * threads on 2 cores, where this one costs none (measured with the round trip of a 3 KB record).
   */
  private static final RecyclerPool<BufferRecycler> POOL = JsonRecyclerPools.sharedConcurrentDequePool();
  private static volatile boolean standardShared;

  private JsonBuffers() {}

  /** The process's pool (for tests and diagnostics). */
  public static RecyclerPool<BufferRecycler> pool() {
    return POOL;
  }

  /**
   * Makes Temporal's standard JSON payload converter (every {@link DefaultDataConverter} built from
   * {@link DefaultDataConverter#STANDARD_PAYLOAD_CONVERTERS}, and search attributes) borrow from the
   * process's pool. Idempotent; true when it is (or already was) done.
   */
  public static synchronized boolean shareStandardConverter() {
    if (standardShared) {
      return true;
    }
    for (PayloadConverter converter : DefaultDataConverter.STANDARD_PAYLOAD_CONVERTERS) {
      if (converter instanceof JacksonJsonPayloadConverter jackson) {
        ObjectMapper mapper = mapperOf(jackson);
        if (mapper == null) {
          return false;
        }
        mapper.getFactory().setRecyclerPool(POOL);
        standardShared = true;
        return true;
      }
    }
    log.warn("Temporal's standard payload converters have no Jackson converter: its JSON buffers stay per thread");
    return false;
  }

  private static ObjectMapper mapperOf(JacksonJsonPayloadConverter converter) {
    try {
      Field field = JacksonJsonPayloadConverter.class.getDeclaredField("mapper");
      field.setAccessible(true);
      return (ObjectMapper) field.get(converter);
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("Cannot reach the mapper of Temporal's payload converter ({}): its JSON buffers stay per thread", e.toString());
      return null;
    }
  }
}
