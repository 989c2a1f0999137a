package io.onceport.app.cli;

import io.onceport.shared.cli.CommandName;
import io.onceport.app.demo.DemoTarget;
import java.io.IOException;
import java.net.BindException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code onceport demo-target}: runs the demo releases and credentials API until the process is stopped. */
@Command(
    name = "demo-target",
    mixinStandardHelpOptions = true,
    description = {
      "Run the demo releases and credentials API that the shipped contracts call, until stopped.",
      "POST /v1/releases honours Idempotency-Key (same key and body: the stored answer; a different body: 422;",
      "  while the first is still being handled: 409). GET /v1/releases/by-key/KEY is the status endpoint:",
      "  200 done, 202 still processing, 404 nothing done. POST /v1/notifications acts every time.",
      "POST /v1/credentials/SERVICE/rotate makes a new key and answers {old_key_id, new_key_id} (Idempotency-Key as",
      "  above); GET /v1/credentials/SERVICE/active answers {key_id} (202 while a rotation is being applied);",
      "  GET /v1/credentials/SERVICE/rotations/by-key/KEY is its status endpoint. SERVICE-key-1 is active at first.",
      "GET /ledger lists every request received, repeated keys included: method, path, key, body, time,",
      "  finished, handling (acted | replayed | rejected | read | dropped | processing), status, fault.",
      "Faults on the POST endpoints, by header X-Demo-Fault: FAULT or armed for the next COUNT requests",
      "  with POST /admin/faults {\"next\": \"FAULT\", \"count\": 1}:",
      "  drop-after-accept          act, then close the connection without an answer",
      "  drop-without-acting        close the connection without acting or answering",
      "  delay=MS                   wait MS, then act (also when the client gave up); status says 202 meanwhile",
      "  status=CODE[,retry-after=S] answer CODE (400-599), optionally with Retry-After, without acting",
      "  e.g. status=503,retry-after=0",
      "  apply-late=MS               a rotation only: answer now, make the new key active MS later",
      "  apply-never                 a rotation only: answer {old_key_id, new_key_id}, but the old key stays active"
    })
public final class DemoTargetCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:8766",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String listen;

  @Override
  public Integer call() throws InterruptedException {
    int colon = listen.lastIndexOf(':');
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      port = -1;
    }
    if (colon <= 0 || port < 0 || port > 65535) {
      throw new CliException("invalid --listen '" + listen + "': expected HOST:PORT");
    }
    String host = listen.substring(0, colon);
    DemoTarget target;
    try {
      target = DemoTarget.start(host, port);
    } catch (BindException e) {
      throw new CliException("cannot listen on " + listen + ": address already in use (a demo target already running? "
          + "`curl -s http://" + listen + "/ledger` answers if so, and it can be used as it is; else stop what holds the port, "
          + "or choose another with " + CommandName.command("demo-target --listen 127.0.0.1:PORT") + " and "
          + "DEMO_TARGET=http://127.0.0.1:PORT for serve)");
    } catch (IOException | RuntimeException e) {
      throw new CliException("cannot listen on " + listen + ": " + e.getMessage());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(target::close, "demo-target-shutdown"));
    spec.commandLine().getOut().println(
        "onceport demo-target listening on " + target.url() + " (ledger: " + target.url() + "/ledger)");
    spec.commandLine().getOut().flush();
    new CountDownLatch(1).await();
    return 0;
  }
}
