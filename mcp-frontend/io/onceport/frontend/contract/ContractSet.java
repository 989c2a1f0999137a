package io.onceport.frontend.contract;

import io.onceport.workflow.contract.ToolContract;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tools loaded from a contracts directory, in tool-name order (so {@code tools/list} is
 * deterministic), with the warnings the loader produced. Immutable.
 */
public final class ContractSet {
  private final Map<String, ToolContract> byName;
  private final List<String> warnings;

  public ContractSet(List<ToolContract> contracts, List<String> warnings) {
    Objects.requireNonNull(contracts, "contracts == null");
    Map<String, ToolContract> map = new LinkedHashMap<>();
    contracts.stream()
        .sorted((a, b) -> a.tool().compareTo(b.tool()))
        .forEach(
            c -> {
              if (map.putIfAbsent(c.tool(), c) != null) {
                throw new IllegalArgumentException("duplicate tool: " + c.tool());
              }
            });
    this.byName = Collections.unmodifiableMap(map);
    this.warnings = List.copyOf(Objects.requireNonNull(warnings, "warnings == null"));
  }

  /** All contracts, ordered by tool name. */
  public List<ToolContract> contracts() {
    return List.copyOf(byName.values());
  }

  /** Warnings in the {@code file:line: field: message} format, in file order. */
  public List<String> warnings() {
    return warnings;
  }

  public Optional<ToolContract> find(String tool) {
    return Optional.ofNullable(byName.get(tool));
  }

  public int size() {
    return byName.size();
  }
}
