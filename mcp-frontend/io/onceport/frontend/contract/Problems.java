package io.onceport.frontend.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The errors and warnings of one contract file, each as {@code file:line: field: message}, the
 * line being that of the field (or of its nearest ancestor that is in the file). Errors come out
 * in line order, whichever check found them.
 */
final class Problems {
  private record Entry(int line, String text) {}

  private final Path file;
  private final YamlTree tree;
  private final List<Entry> errors = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  Problems(Path file, YamlTree tree) {
    this.file = file;
    this.tree = tree;
  }

  void error(String path, String message) {
    int line = tree.lineOf(path);
    errors.add(new Entry(line, file + ":" + line + ": " + path + ": " + message));
  }

  /** An error not about one field (a record constructor's guard): reported on line 1. */
  void fileError(String message) {
    errors.add(new Entry(1, file + ":1: " + message));
  }

  void warn(String path, String message) {
    warnings.add(file + ":" + tree.lineOf(path) + ": " + path + ": " + message);
  }

  int errorCount() {
    return errors.size();
  }

  /** True when {@code path} (dotted, as in messages) is in the file with a value, valid or not. */
  boolean present(String path) {
    JsonNode node = tree.root;
    for (String step : path.split("\\.")) {
      node = node == null ? null : node.get(step);
    }
    return node != null && !node.isNull();
  }

  /** True when an error about {@code path} was already reported (a later rule then says nothing more about it). */
  boolean reported(String path) {
    String field = ": " + path + ": ";
    return errors.stream().anyMatch(e -> e.text().contains(field));
  }

  List<String> errors() {
    return errors.stream().sorted(Comparator.comparingInt(Entry::line)).map(Entry::text).toList();
  }

  List<String> warnings() {
    return List.copyOf(warnings);
  }
}
