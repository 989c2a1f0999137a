package io.onceport.activity.ssh;

/** A real SSH server on 127.0.0.1 that runs exec requests through {@code /bin/sh -c}. */
interface SshServer extends AutoCloseable {
  int port();

  /** {@code SHA256:...} of the key the server presents. */
  String hostKeyFingerprint();

  /** The account the client key is authorized for. */
  String user();

  @Override
  void close() throws Exception;
}
