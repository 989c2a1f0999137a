package io.onceport.app.cli;

import io.onceport.frontend.contract.OpenApiImport;
import io.onceport.shared.text.InertText;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code onceport contracts import-openapi}: contracts for operations of an OpenAPI document. */
@Command(
    name = "import-openapi",
    mixinStandardHelpOptions = true,
    description = "Write one commented http contract per chosen operation of an OpenAPI 3.x (or Swagger 2.0) document: "
        + "input schema from the parameters and the JSON request body (argument 'body'), method and URL template, "
        + "idempotency_header when the operation declares an Idempotency-Key header, and a proposed replay class (GET: "
        + "read_only; declared idempotency key: idempotency_key; else irreversible). Every file is loaded back before it "
        + "is kept.")
final class ImportOpenApiCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Parameters(index = "0", paramLabel = "SPEC", description = "The OpenAPI document: a file or an http(s) URL.")
  String document;

  @CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
  Choice choice;

  static final class Choice {
    @CommandLine.Option(names = "--operation", arity = "1..*", paramLabel = "ID", description = "Operation ids to import.")
    List<String> operations;

    @CommandLine.Option(names = "--all", description = "Import every operation.")
    boolean all;
  }

  @CommandLine.Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write contracts into.")
  Path out;

  @CommandLine.Option(names = "--server", paramLabel = "URL",
      description = "Base URL of the API (default: the document's first server, which must then be absolute).")
  String server;

  @CommandLine.Option(names = "--credential", paramLabel = "REF", description = "Vault credential the contracts send.")
  String credential;

  @CommandLine.Option(names = "--prefix", paramLabel = "P", defaultValue = "", description = "Prefix for the contracts' tool names.")
  String prefix;

  @CommandLine.Option(names = "--force", description = "Overwrite contracts that already exist in --out.")
  boolean force;

  @Override
  public void run() {
    PrintWriter o = spec.commandLine().getOut();
    boolean remote = document.startsWith("http://") || document.startsWith("https://");
    if (!remote && !Files.isRegularFile(Path.of(document))) {
      throw new CliException(document + ": no such file");
    }
    OpenApiImport api;
    List<OpenApiImport.Result> results;
    try {
      api = OpenApiImport.parse(remote ? document : Path.of(document).toAbsolutePath().toString());
      results = api.contracts(choice.all ? List.of() : choice.operations, server, credential, prefix);
    } catch (IllegalArgumentException e) {
      throw new CliException(e.getMessage());
    }
    for (String m : api.parseMessages()) {
      o.println(InertText.of("parser: " + m));
    }
    List<ContractFiles.File> files = new ArrayList<>();
    for (OpenApiImport.Result r : results) {
      if (r.skipped() != null) {
        o.println(InertText.of("skipped " + r.operationId() + ": " + r.skipped()));
      } else {
        files.add(new ContractFiles.File(r.fileName(), r.yaml(), r.replayClass().wireName() + "  (operation " + r.operationId() + ")"));
      }
    }
    ContractFiles.writeChecked(files, out, force, o);
    o.println("imported " + files.size() + " operations; review each file's replay class, then: onceport contracts check " + out);
    o.flush();
  }
}
