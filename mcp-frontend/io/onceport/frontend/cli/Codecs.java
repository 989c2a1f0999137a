package io.onceport.frontend.cli;

import io.temporal.common.converter.DataConverter;

/** The data converter CLI commands use to read payloads (the default until payload encryption is configured). */
final class Codecs {
  private Codecs() {}

  static DataConverter cliDataConverter() {
    return DataConverter.getDefaultInstance();
  }
}
