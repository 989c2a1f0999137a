package io.onceport.frontend.temporal;

import io.onceport.shared.temporal.TemporalConnection;
import io.onceport.frontend.gateway.GatewayException;
import io.onceport.workflow.execution.AttachRequest;
import io.onceport.workflow.execution.ExecutionInput;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DataConverter;
import java.util.Objects;

/**
 * The size budget of what one call hands Temporal: the workflow input and the attach request,
 * measured as the data converter in use encodes them (JSON, then encrypted), checked before
 * anything is sent, so an oversized call is refused at once instead of being started and stuck.
 *
 * <p>Why it is needed: Temporal refuses gRPC messages over 4 MiB (server and Java test server
 * alike) and, on a real server, payloads over 2 MiB ({@code limit.blobSize.error}). Measured on
 * this code base: a 1.4 MB argument was accepted by update-with-start on the embedded engine, then
 * the worker's first workflow-task completion (4,209,452 bytes: the attach update's result record,
 * the journal marker and the dispatch activity's input each carry the arguments) was refused with
 * RESOURCE_EXHAUSTED and retried forever — the request hung with no answer. On the Temporal CLI
 * dev server a 2.2 MB input failed with "Blob data size exceeds limit". So the budget is on the
 * input as it actually is (whatever the workflow input carries, measured, not estimated from the
 * arguments), with {@link #DEFAULT_LIMIT} a quarter of the message limit: room for the workflow to
 * carry the argument bytes up to three times in one workflow task, plus a 256 KiB result.
 */
public final class PayloadBudget {
  /** Temporal's gRPC message size limit (server default). */
  public static final long GRPC_MESSAGE_LIMIT = 4L * 1024 * 1024;
  /** Default budget for the workflow input plus the attach request: 1 MiB. */
  public static final long DEFAULT_LIMIT = GRPC_MESSAGE_LIMIT / 4;

  private final DataConverter converter;
  private final long limit;

  public PayloadBudget(DataConverter converter, long limit) {
    this.converter = Objects.requireNonNull(converter, "converter == null");
    if (limit <= 0) {
      throw new IllegalArgumentException("Invalid payload budget: " + limit + " bytes");
    }
    this.limit = limit;
  }

  /** The budget of a connection, with its own data converter (encryption on or off). */
  public static PayloadBudget of(TemporalConnection connection) {
    return new PayloadBudget(connection.client().getOptions().getDataConverter(), DEFAULT_LIMIT);
  }

  /** Bytes of the input and attach request as Temporal will receive them. */
  public long encodedSize(ExecutionInput input, AttachRequest attach) {
    return size(input) + size(attach);
  }

  private long size(Object value) {
    return converter.toPayloads(value).map(Payloads::getSerializedSize).orElse(0);
  }

  /**
   * @throws GatewayException of kind {@link GatewayException.Kind#TOO_LARGE} naming the size and
   *     the limit, when the call does not fit
   */
  public void check(ExecutionInput input, AttachRequest attach) {
    long size = encodedSize(input, attach);
    if (size > limit) {
      throw new GatewayException(GatewayException.Kind.TOO_LARGE, String.format(
          "Invalid params: call too large: its workflow input and attach request encode to %,d bytes; the limit is %,d bytes "
              + "(%s). Nothing was started; pass large content by reference (e.g. a URL the target fetches)",
          size, limit, limit % (1024 * 1024) == 0 ? limit / (1024 * 1024) + " MiB" : limit / 1024 + " KiB"));
    }
  }
}
