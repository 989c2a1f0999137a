package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import io.onceport.workflow.journal.JournalEntry;
import io.onceport.workflow.journal.JournalTransition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The journal entries an execution queued that are not written yet. Handlers and the main method
 * add to it; only the main method empties it, either into one local activity per wait ({@link
 * MainLoop#commit}) or into the next send, whose activity makes them durable with its {@code
 * dispatched} entry before the first byte. Entries that did not become durable go back to the
 * front, so the journal keeps the order in which things happened.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE)
final class JournalQueue {
  private final String executionId;
  private final String fingerprint;
  private final String tool;
  private final List<JournalEntry> pending = new ArrayList<>();

  /** For the data converter. */
  private JournalQueue() {
    this(null, null, null);
  }

  JournalQueue(String executionId, String fingerprint, String tool) {
    this.executionId = executionId;
    this.fingerprint = fingerprint;
    this.tool = tool;
  }

  /** Queues an entry; every entry names the tool (the metrics count by it). */
  void add(JournalTransition transition, int attempt, String at, Map<String, Object> detail) {
    Map<String, Object> withTool = new LinkedHashMap<>(detail);
    withTool.putIfAbsent("tool", tool);
    pending.add(new JournalEntry(executionId, fingerprint, transition.wireName(), attempt, at, withTool));
  }

  boolean isEmpty() {
    return pending.isEmpty();
  }

  /** The queued entries, in order, and an empty queue. */
  List<JournalEntry> drain() {
    List<JournalEntry> batch = new ArrayList<>(pending);
    pending.clear();
    return batch;
  }

  /** Entries that did not become durable go back to the front of the queue. */
  void requeue(List<JournalEntry> entries) {
    pending.addAll(0, entries);
  }
}
