package io.onceport.activity.journal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads the verified entries of every segment of one journal in a data dir, for investigation.
 * Entries after a segment's first problem are not returned (nothing after it is anchored); the
 * problem is reported instead.
 */
public final class JournalReader {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JournalReader() {}

  /** One activity entry as written by {@link JournalActivitiesImpl} or the dispatch hook. */
  public record Record(String journal, long seq, String time, String executionId, String fingerprint,
      String transition, int attempt, String at, Map<String, Object> detail) {
    public Record {
      Objects.requireNonNull(journal, "journal == null");
      detail = detail == null ? Map.of() : detail;
    }
  }

  /** Entries of all segments plus, per damaged segment, its first problem ("activity/w1: ..."). */
  public record Contents(List<Record> records, List<String> problems) {}

  public static Contents read(Path dataDir, String journal) throws IOException {
    List<Record> records = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Path segment : JournalVerifier.segments(dataDir)) {
      if (!segment.getParent().getFileName().toString().equals(journal)) {
        continue;
      }
      String name = JournalVerifier.journalName(segment);
      SegmentScan scan = SegmentScan.scan(segment, false, c -> records.add(toRecord(name, c.entry())));
      if (scan.problem != null) {
        problems.add(name + ": " + scan.problem.message());
      }
    }
    return new Contents(records, problems);
  }

  /**
   * The entries of one execution in every segment of one journal directory, in segment order,
   * without checking the chains ({@code audit verify} does that): what a reset run reads to learn
   * the sends its history lost. A line is parsed only when it names the execution, but every line
   * of every segment is read: the cost grows with the journal, which is why only a reset run asks.
   */
  public static List<Record> ofExecution(Path journalDir, String executionId) throws IOException {
    String needle = "\"execution_id\":" + JSON.writeValueAsString(executionId);
    List<Record> out = new ArrayList<>();
    List<Path> segments;
    try (var listed = java.nio.file.Files.list(journalDir)) {
      segments = listed.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
    }
    for (Path segment : segments) {
      String name = journalDir.getFileName() + "/" + segment.getFileName().toString().replaceFirst("\\.jsonl$", "");
      try (var lines = java.nio.file.Files.newBufferedReader(segment, java.nio.charset.StandardCharsets.UTF_8)) {
        for (String line; (line = lines.readLine()) != null; ) {
          if (line.contains(needle)) {
            try {
              JsonNode e = JSON.readTree(line);
              if (executionId.equals(e.path("execution_id").asText())) {
                out.add(toRecord(name, e));
              }
            } catch (IOException unreadable) {
              // a torn last line: audit verify reports it; nothing to learn from it here
            }
          }
        }
      }
    }
    return out;
  }

  private static Record toRecord(String journal, JsonNode e) {
    Map<String, Object> detail = e.has("detail") && e.get("detail").isObject()
        ? JSON.convertValue(e.get("detail"), new TypeReference<Map<String, Object>>() {})
        : Map.of();
    return new Record(journal, e.path("seq").asLong(), e.path("time").asText(""),
        text(e, "execution_id"), text(e, "fingerprint"), text(e, "transition"),
        e.path("attempt").asInt(0), text(e, "at"), detail);
  }

  private static String text(JsonNode e, String field) {
    JsonNode n = e.get(field);
    return n == null || n.isNull() ? null : n.asText();
  }
}
