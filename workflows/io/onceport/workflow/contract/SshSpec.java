package io.onceport.workflow.contract;

import java.util.List;
import java.util.Objects;

/**
 * How an SSH tool reaches its host. {@code command} is an argv whose elements may hold
 * {@code {{argument}}} placeholders; each element is quoted for the remote shell, never
 * interpreted by it.
 */
public record SshSpec(
    String host,
    int port,
    String user,
    String hostKey,
    String credential,
    String keyFile,
    List<String> command,
    String workingDir,
    boolean marker,
    String helperPath,
    String stateDir,
    long timeoutMillis) {
  public SshSpec {
    Objects.requireNonNull(host, "host == null");
    Objects.requireNonNull(user, "user == null");
    Objects.requireNonNull(hostKey, "hostKey == null");
    command = List.copyOf(Objects.requireNonNull(command, "command == null"));
    if (command.isEmpty()) {
      throw new IllegalArgumentException("command is empty");
    }
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("Invalid port: " + port);
    }
  }
}
