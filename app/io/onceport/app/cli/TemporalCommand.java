package io.onceport.app.cli;

import io.onceport.workflow.execution.ExecutionSearchAttributes;
import com.google.protobuf.util.Durations;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.onceport.shared.temporal.TemporalConnection;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.RegisterNamespaceRequest;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code onceport temporal setup}: makes a Temporal namespace ready for Onceport — the namespace
 * exists and Onceport's search attributes are registered in it. It is the command {@code /readyz}
 * and the start-up line name when either is missing; running it twice changes nothing.
 */
@Command(name = "temporal", mixinStandardHelpOptions = true,
    description = "Prepare a Temporal namespace for Onceport.",
    subcommands = {TemporalCommand.Setup.class})
public final class TemporalCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "setup", mixinStandardHelpOptions = true,
      description = {"Create the namespace when it does not exist and register Onceport's search attributes in it.",
          "Idempotent. On a cluster that refuses to create namespaces (Temporal Cloud), create it there first, then run this."})
  static final class Setup implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin TemporalOptions temporal;

    @Option(names = "--retention", paramLabel = "DURATION", defaultValue = "P1D",
        description = "Retention of closed executions for a namespace created here (default: ${DEFAULT-VALUE}, ISO-8601).")
    Duration retention;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      if (retention.isNegative() || retention.isZero()) {
        throw new CliException("--retention must be positive, not " + retention);
      }
      try (TemporalConnection connection = temporal.connect()) {
        String namespace = connection.namespace();
        if (namespaceExists(connection)) {
          out.println("onceport: namespace " + namespace + " exists at " + connection.target());
        } else {
          createNamespace(connection);
          out.println("onceport: created namespace " + namespace + " at " + connection.target() + " (retention " + retention + ")");
        }
        registerSearchAttributes(connection);
        out.println("onceport: search attributes registered in " + namespace + ": "
            + String.join(", ", ExecutionSearchAttributes.NAMES));
      }
      return 0;
    }

    /**
     * Registers the attributes; a namespace created a moment ago is not yet in the server's
     * namespace cache (refreshed every 10 s by default), so "not found" is retried for up to 60 s.
     */
    private static void registerSearchAttributes(TemporalConnection connection) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (true) {
        try {
          connection.registerSearchAttributes(ExecutionSearchAttributes.NAMES);
          return;
        } catch (IllegalStateException e) {
          boolean notYet = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("not found");
          if (!notYet || System.nanoTime() > deadline) {
            throw new CliException(e.getMessage());
          }
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CliException("interrupted while registering search attributes");
        }
      }
    }

    private static boolean namespaceExists(TemporalConnection connection) {
      try {
        connection.stubs().blockingStub()
            .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(connection.namespace()).build());
        return true;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
          return false;
        }
        throw new CliException("cannot ask Temporal at " + connection.target() + " about namespace " + connection.namespace()
            + ": " + TemporalConnection.shortReason(e));
      }
    }

    private void createNamespace(TemporalConnection connection) {
      try {
        connection.stubs().blockingStub().registerNamespace(RegisterNamespaceRequest.newBuilder()
            .setNamespace(connection.namespace())
            .setWorkflowExecutionRetentionPeriod(Durations.fromMillis(retention.toMillis()))
            .build());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
          return;
        }
        throw new CliException("cannot create namespace " + connection.namespace() + " at " + connection.target() + ": "
            + TemporalConnection.shortReason(e) + " (on Temporal Cloud create it in the Cloud UI or with tcld, then run this again)");
      }
    }
  }
}
