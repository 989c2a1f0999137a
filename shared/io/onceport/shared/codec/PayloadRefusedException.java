package io.onceport.shared.codec;

import io.temporal.common.converter.DataConverterException;

/**
 * A payload the codec will not decode: not encrypted by Onceport while payload encryption is on,
 * encrypted with a key this deployment does not have, or failing authentication (forged or
 * corrupted).
 *
 * <p>Why a {@link DataConverterException} and not the SDK's {@code PayloadCodecException}: the Java
 * SDK drops a signal whose input fails with a {@code DataConverterException} (logged as "Failure
 * deserializing signal input … Dropping it", counted in {@code temporal_corrupted_signals}) but
 * fails the whole workflow task — retried for ever — on any other exception. A forged signal must
 * change nothing, not wedge the workflow. An update's input is decoded while the update is
 * validated, so there any exception rejects the update with this message and nothing is written to
 * history.
 */
public final class PayloadRefusedException extends DataConverterException {
  public PayloadRefusedException(String message) {
    super(message);
  }

  public PayloadRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
