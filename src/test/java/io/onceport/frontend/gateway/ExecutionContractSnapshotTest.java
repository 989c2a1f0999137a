package io.onceport.frontend.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.onceport.frontend.contract.ContractLoader;
import io.onceport.frontend.contract.ContractSet;
import io.onceport.frontend.fingerprint.ArgumentValidator;
import io.onceport.frontend.fingerprint.FingerprintKey;
import io.onceport.frontend.fingerprint.Fingerprinter;
import io.onceport.workflow.contract.ToolContract;
import io.onceport.workflow.execution.ExecutionInput;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The contract an execution carries to the engine (in its start request, and again in every send's
 * input) is the loaded one without what only agents and the front end read: its description and
 * schemas. Everything the workflow and its activities act on stays, and so does the fingerprint.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ExecutionContractSnapshotTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theStartCarriesTheContractWithoutItsDescriptionAndSchemas() throws Exception {
    ContractSet contracts = new ContractLoader().load(Path.of("contracts"));
    Fingerprinter fingerprinter = new Fingerprinter(FingerprintKey.of(new byte[32]));
    ContractCallPreparation preparation = new ContractCallPreparation(contracts, new ArgumentValidator(), fingerprinter);
    ToolContract loaded = contracts.find("create_release").orElseThrow();
    ToolCall call = new ToolCall("agent:deployer", "create_release", JSON.readTree("{\"service\":\"api\",\"version\":\"1.2\"}"),
        null, null, "session-1", "1", "2025-06-18", "test/1", "127.0.0.1", 10_000);

    ExecutionInput input = preparation.prepare(call).input();
    ToolContract carried = input.contract();

    assertEquals("", carried.description());
    assertNull(carried.inputSchema());
    assertNull(carried.outputSchema());
    assertEquals(new ToolContract(loaded.tool(), "", null, null, loaded.channel(), loaded.http(), loaded.ssh(), loaded.replay(),
        loaded.fingerprintIgnore(), loaded.fingerprintSecret(), loaded.resultFormat(), loaded.mcp()), carried,
        "everything the workflow and its activities read is the loaded contract's");
    assertEquals(fingerprinter.fingerprint(fingerprinter.canonicalRecord(loaded, "agent:deployer",
        new ArgumentValidator().validate(loaded, call.arguments()), null)), input.fingerprint(), "the identity is unchanged");

    String start = DefaultDataConverter.newDefaultInstance().toPayload(input).orElseThrow().getData().toStringUtf8();
    String full = DefaultDataConverter.newDefaultInstance().toPayload(loaded).orElseThrow().getData().toStringUtf8();
    String slim = DefaultDataConverter.newDefaultInstance().toPayload(carried).orElseThrow().getData().toStringUtf8();
    assertFalse(start.contains("Service to deploy"), start);
    assertTrue(full.length() - slim.length() >= 450, "bytes saved per copy: " + (full.length() - slim.length()));
    System.out.println("create_release's contract as an execution carries it: " + slim.length() + " bytes (loaded: "
        + full.length() + "); the start input: " + start.length());
  }
}
