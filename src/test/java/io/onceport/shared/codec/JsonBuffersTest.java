package io.onceport.shared.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.temporal.common.converter.PayloadConverter;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JsonBuffersTest {

  /** Fails when an SDK upgrade moves the converter's mapper: the buffers would silently be per thread again. */
  @Test
  void temporalsStandardJsonConverterBorrowsFromTheProcessPool() throws Exception {
    assertTrue(JsonBuffers.shareStandardConverter());
    assertTrue(JsonBuffers.shareStandardConverter(), "idempotent");
    assertSame(JsonRecyclerPools.sharedConcurrentDequePool(), standardMapper().getFactory()._getRecyclerPool());
    assertSame(JsonBuffers.pool(), standardMapper().getFactory()._getRecyclerPool());
  }

  @TempDir Path data;

  @Test
  void theEncryptedConverterStillRoundTripsFromManyThreads() throws Exception {
    var converter = Payloads.dataConverter(KeyRing.loadOrCreate(data));
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < 8; t++) {
      int n = t;
      Thread thread = new Thread(() -> {
        try {
          for (int i = 0; i < 200; i++) {
            String value = "thread " + n + " value " + i + " ".repeat(i % 50) + "é";
            Payload p = converter.toPayload(value).orElseThrow();
            assertEquals(value, converter.fromPayload(p, String.class, String.class));
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertTrue(failures.isEmpty(), () -> "failures: " + failures);
    assertTrue(JsonBuffers.pool().pooledCount() >= 1, "buffers went back to the shared pool");
  }

  private static ObjectMapper standardMapper() throws ReflectiveOperationException {
    for (PayloadConverter c : DefaultDataConverter.STANDARD_PAYLOAD_CONVERTERS) {
      if (c instanceof JacksonJsonPayloadConverter jackson) {
        Field f = JacksonJsonPayloadConverter.class.getDeclaredField("mapper");
        f.setAccessible(true);
        return (ObjectMapper) f.get(jackson);
      }
    }
    throw new AssertionError("no Jackson converter among the standard ones");
  }
}
