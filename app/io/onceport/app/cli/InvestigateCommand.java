package io.onceport.app.cli;

import io.onceport.activity.journal.JournalReader;
import io.onceport.activity.journal.Journals;
import io.onceport.app.investigate.Investigation;
import io.onceport.shared.text.InertText;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code onceport investigate}: the sequence behind a suspected duplicate, from the journal. */
@Command(name = "investigate", mixinStandardHelpOptions = true,
    description = {"Prints the journal sequence for one intent and answers, in order: one agent process or",
        "several; authorization and dispatch; the target's answer; delivery after completion;",
        "how a second call was handled (a retry attached to the execution, or a new intent with its own execution);",
        "whether a temporal workflow reset ran an execution again, and what each run sent.",
        "With --temporal HOST:PORT (or $ONCEPORT_TEMPORAL) the records are read from Temporal too; without it, offline."})
public final class InvestigateCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(paramLabel = "EXECUTION_ID|FINGERPRINT")
  String query;

  /**
   * {@code --data} (the journal), and {@code --temporal}: when given (or {@code $ONCEPORT_TEMPORAL}),
   * the execution records are read from Temporal too; they cover executions whose journal lives on
   * another worker's host. Without it, the journal alone (offline).
   */
  @Mixin TemporalOptions temporalOptions;

  @Option(names = "--json", description = "print the report as JSON")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Path data = temporalOptions.data();
    String temporal = temporalOptions.chosen() ? temporalOptions.target() : null;
    JournalReader.Contents contents = java.nio.file.Files.isDirectory(data.resolve("journal"))
        ? JournalReader.read(data, Journals.ACTIVITY)
        : new JournalReader.Contents(java.util.List.of(), java.util.List.of());
    java.util.List<JournalReader.Record> records = contents.records();
    if (temporal != null) {
      records = Investigation.merge(records, fromTemporal(records, data));
    }
    Investigation.Report report = Investigation.investigate(query, records, contents.problems());
    if (report.sequence().isEmpty()) {
      throw new CliException("no journal entries for " + query + " in " + data.resolve("journal/activity")
          + (temporal == null ? " (add --temporal HOST:PORT to search Temporal too)" : " nor in Temporal at " + temporal));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(ExecutionsCommand.JSON.writeValueAsString(toJson(report)));
    } else {
      print(out, report);
    }
    out.flush();
    return 0;
  }

  /** Records from Temporal for the executions the query names (an act_ id, or the journal's matches). */
  private java.util.List<JournalReader.Record> fromTemporal(java.util.List<JournalReader.Record> journal, Path data) {
    java.util.Set<String> ids = new java.util.LinkedHashSet<>();
    if (query.startsWith("act_")) {
      ids.add(query);
    }
    journal.stream().filter(r -> query.equals(r.fingerprint())).forEach(r -> ids.add(r.executionId()));
    java.util.List<JournalReader.Record> out = new java.util.ArrayList<>();
    try (io.onceport.shared.temporal.TemporalConnection connection = temporalOptions.connect()) {
      var directory = new io.onceport.frontend.temporal.ExecutionDirectory(connection);
      if (query.startsWith("hmac-sha256:") && directory.hasVisibility()) {
        ExecutionSearch.list(connection, directory, "OnceportFingerprint = '" + query.replace("'", "") + "'", null, 100)
            .forEach(l -> ids.add(l.executionId()));
      }
      for (String id : ids) {
        directory.locate(id).ifPresent(l -> out.addAll(Investigation.fromExecutionRecord(directory.record(l))));
      }
    }
    return out;
  }

  static Map<String, Object> toJson(Investigation.Report r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("query", r.query());
    m.put("executions", r.executionIds());
    m.put("fingerprints", r.fingerprints());
    m.put("sequence", r.sequence().stream().map(e -> {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("journal", e.journal());
      x.put("seq", e.seq());
      x.put("at", e.at());
      x.put("execution_id", e.executionId());
      x.put("transition", e.transition());
      x.put("attempt", e.attempt());
      x.put("detail", e.detail());
      return x;
    }).toList());
    Map<String, Object> answers = new LinkedHashMap<>();
    r.answers().forEach(a -> answers.put(a.key(), a.answer()));
    m.put("answers", answers);
    m.put("verdict", r.verdict());
    m.put("warnings", r.warnings());
    return m;
  }

  /**
   * The report as lines rendered with {@link InertText#lines}: the sequence's details, the answers
   * and the verdict quote what agents sent (session and client names, JSON-RPC ids, run ids, intent
   * keys) and what targets answered; none of it may add a "dispatched #2" line or a verdict of its own.
   */
  private static void print(PrintWriter out, Investigation.Report r) {
    List<String> lines = new ArrayList<>();
    lines.add("investigation: " + r.query() + " (executions " + String.join(", ", r.executionIds())
        + "; fingerprint " + String.join(", ", r.fingerprints()) + ")");
    for (String w : r.warnings()) {
      lines.add("warning: journal damaged, entries after the problem ignored: " + w);
    }
    lines.add("sequence:");
    for (var e : r.sequence()) {
      lines.add(String.format("  %-24s %-14s %-16s #%d %s", e.at(), e.executionId(), e.transition(), e.attempt(),
          e.detail().isEmpty() ? "" : e.detail()));
    }
    int i = 1;
    for (Investigation.Answer a : r.answers()) {
      lines.add(i++ + ". " + a.question());
      lines.add("   " + a.answer());
    }
    lines.add("verdict: " + r.verdict());
    out.println(InertText.lines(lines));
  }
}
