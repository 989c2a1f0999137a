package io.onceport.shared.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.onceport.app.engine.EmbeddedEngine;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.serviceclient.GrpcCompression;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TemporalConnectionCompressionTest {
  @Test
  void loopbackTargetsAreLoopbackWithoutAnyNameLookUp() {
    for (String target : new String[] {"127.0.0.1:7233", "localhost:7233", "LOCALHOST:1", "127.1.2.3:7233", "[::1]:7233",
        "dns:///127.0.0.1:7233", "127.0.0.1"}) {
      assertTrue(TemporalConnection.isLoopback(target), target);
    }
    for (String target : new String[] {"10.0.0.5:7233", "192.168.1.2:7233", "temporal.example.com:7233",
        "[2001:db8::1]:7233", "my-namespace.tmprl.cloud:7233", "localhost.example.com:7233", "cafe:7233", "beef:7233",
        "127.1:7233"}) {
      assertFalse(TemporalConnection.isLoopback(target), target);
    }
  }

  @Test
  void requestsToALoopbackEngineAreNotGzippedAndToARemoteOneTheyAre() {
    assertEquals(GrpcCompression.NONE, TemporalConnection.compressionFor("127.0.0.1:7233"));
    assertEquals(GrpcCompression.GZIP, TemporalConnection.compressionFor("temporal.example.com:7233"));
  }

  @Test
  void aConnectionToTheEmbeddedEngineSendsUncompressedAndIsAnswered() {
    try (EmbeddedEngine engine = EmbeddedEngine.start("127.0.0.1", 0);
        TemporalConnection connection = TemporalConnection.connect(engine.target(), "default", true, null, Duration.ofSeconds(20))) {
      assertEquals(GrpcCompression.NONE, connection.stubs().getOptions().getGrpcCompression());
      assertEquals("default", connection.stubs().blockingStub()
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace("default").build())
          .getNamespaceInfo().getName());
    }
  }
}
