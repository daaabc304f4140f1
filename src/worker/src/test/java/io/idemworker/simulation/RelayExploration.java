package io.idemworker.simulation;

import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every schedule of the outbox relay's page protocol with crashes, breadth-first: events are
 * written to the outbox at any moment; the relay reads the change feed after its checkpoint, marks
 * the page's ids as being sent in its lease document, sends them to the topic, then moves its
 * checkpoint past the page ({@code OutboxRelay.page}/{@code publish}); a crash at any point
 * restarts the cycle from the checkpoint; the topic's duplicate detection drops a MessageId it has
 * seen until its window passes (once per schedule, at any moment).
 *
 * <p>The protocol is modelled here (the relay's Cosmos and Service Bus calls are not re-run); the
 * event ids are the real ones ({@link OrderDocumentIds#outboxEvent}). What it shows feeds {@link
 * TopicConsumerModel}: no event is lost, and every copy of an event the topic holds carries the
 * event's id, at most one copy per crash beyond the first and none while the window holds, so the
 * consumer sees only copies its marker recognises.
 *
 * <p>Not thread-safe; one exploration per instance.
 */
final class RelayExploration {
  /** How the relay behaves: the real order, or a mutant. */
  enum Flow {
    /** Mark, send, checkpoint; MessageId = the stored event id. */
    REAL,
    /** Moves the checkpoint before sending (a mutant). */
    CHECKPOINT_BEFORE_SEND,
    /** Sends each attempt under a new MessageId, as a producer minting ids per send would. */
    NEW_ID_PER_SEND
  }

  private enum Phase {
    IDLE,
    MARKED,
    SENT
  }

  /**
   * One state: outbox events written, the relay's checkpoint and phase, the page it works on, what
   * the topic holds (one entry per accepted copy: event index and MessageId), the ids its window
   * remembers, sends made, faults left.
   */
  private record State(
      int written,
      int checkpoint,
      Phase phase,
      int pageEnd,
      List<String> topic,
      Set<String> window,
      int sends,
      int crashesLeft,
      boolean windowMayPass) {}

  /**
   * The result of one exploration.
   *
   * @param states distinct states
   * @param violation the first violation with its schedule, if any
   */
  record Report(int states, Optional<List<String>> violation) {
    String render() {
      if (violation.isEmpty()) {
        return "no violation";
      }
      StringBuilder text = new StringBuilder();
      List<String> steps = violation.get();
      for (int i = 0; i < steps.size() - 1; i++) {
        text.append(i + 1).append(". ").append(steps.get(i)).append('\n');
      }
      return text.append("→ violated: ").append(steps.get(steps.size() - 1)).toString();
    }
  }

  private final int events;
  private final Flow flow;
  private final List<String> ids = new ArrayList<>();

  RelayExploration(int events, Flow flow) {
    this.events = events;
    this.flow = flow;
    for (int i = 0; i < events; i++) {
      ids.add(OrderDocumentIds.outboxEvent(new IdempotencyKey("ord-" + (i + 1))));
    }
  }

  Report explore(int crashes) {
    State start = new State(0, 0, Phase.IDLE, 0, List.of(), Set.of(), 0, crashes, true);
    Map<State, State> parent = new HashMap<>();
    Map<State, String> how = new HashMap<>();
    parent.put(start, start);
    ArrayDeque<State> frontier = new ArrayDeque<>(List.of(start));
    while (!frontier.isEmpty()) {
      State state = frontier.poll();
      Optional<String> broken = check(state);
      if (broken.isPresent()) {
        List<String> path = new ArrayList<>();
        for (State s = state; s != start; s = parent.get(s)) {
          path.add(0, how.get(s));
        }
        path.add(broken.get());
        return new Report(parent.size(), Optional.of(path));
      }
      for (Map.Entry<String, State> step : steps(state).entrySet()) {
        if (!parent.containsKey(step.getValue())) {
          parent.put(step.getValue(), state);
          how.put(step.getValue(), step.getKey());
          frontier.add(step.getValue());
        }
      }
    }
    return new Report(parent.size(), Optional.empty());
  }

  private Map<String, State> steps(State s) {
    Map<String, State> next = new java.util.LinkedHashMap<>();
    if (s.written < events) {
      next.put(
          "the handler writes event E" + (s.written + 1) + " to the outbox",
          new State(
              s.written + 1,
              s.checkpoint,
              s.phase,
              s.pageEnd,
              s.topic,
              s.window,
              s.sends,
              s.crashesLeft,
              s.windowMayPass));
    }
    if (s.windowMayPass) {
      next.put(
          "the topic's duplicate-detection window passes",
          new State(
              s.written,
              s.checkpoint,
              s.phase,
              s.pageEnd,
              s.topic,
              Set.of(),
              s.sends,
              s.crashesLeft,
              false));
    }
    if (s.crashesLeft > 0 && s.phase != Phase.IDLE) {
      next.put(
          "the relay crashes (" + s.phase + "); it restarts from checkpoint " + s.checkpoint,
          new State(
              s.written,
              s.checkpoint,
              Phase.IDLE,
              0,
              s.topic,
              s.window,
              s.sends,
              s.crashesLeft - 1,
              s.windowMayPass));
    }
    switch (s.phase) {
      case IDLE -> {
        if (s.written > s.checkpoint) {
          int end = s.written;
          State marked =
              new State(
                  s.written,
                  s.checkpoint,
                  Phase.MARKED,
                  end,
                  s.topic,
                  s.window,
                  s.sends,
                  s.crashesLeft,
                  s.windowMayPass);
          if (flow == Flow.CHECKPOINT_BEFORE_SEND) {
            marked =
                new State(
                    s.written,
                    end,
                    Phase.MARKED,
                    end,
                    s.topic,
                    s.window,
                    s.sends,
                    s.crashesLeft,
                    s.windowMayPass);
          }
          next.put(
              "the relay reads E"
                  + (s.checkpoint + 1)
                  + "..E"
                  + end
                  + " and marks them sending"
                  + (flow == Flow.CHECKPOINT_BEFORE_SEND ? ", checkpoint " + end : ""),
              marked);
        }
      }
      case MARKED -> {
        List<String> topic = new ArrayList<>(s.topic);
        Set<String> window = new LinkedHashSet<>(s.window);
        StringBuilder what = new StringBuilder("the relay sends");
        int from = flow == Flow.CHECKPOINT_BEFORE_SEND ? firstUnsent(s) : s.checkpoint;
        for (int i = from; i < s.pageEnd; i++) {
          String id = flow == Flow.NEW_ID_PER_SEND ? ids.get(i) + "#" + (s.sends + 1) : ids.get(i);
          if (window.add(id)) {
            topic.add(i + "=" + id);
            what.append(" E").append(i + 1).append(" (accepted)");
          } else {
            what.append(" E").append(i + 1).append(" (dropped: seen inside the window)");
          }
        }
        next.put(
            what.toString(),
            new State(
                s.written,
                s.checkpoint,
                Phase.SENT,
                s.pageEnd,
                List.copyOf(topic),
                Set.copyOf(window),
                s.sends + 1,
                s.crashesLeft,
                s.windowMayPass));
      }
      case SENT ->
          next.put(
              "the relay moves its checkpoint to " + s.pageEnd,
              new State(
                  s.written,
                  s.pageEnd,
                  Phase.IDLE,
                  0,
                  s.topic,
                  s.window,
                  s.sends,
                  s.crashesLeft,
                  s.windowMayPass));
    }
    return next;
  }

  /** Under the checkpoint-first mutant the page is behind the checkpoint already. */
  private int firstUnsent(State s) {
    int first = s.pageEnd;
    for (int i = s.pageEnd - 1; i >= 0; i--) {
      if (onTopic(s, i) > 0) {
        break;
      }
      first = i;
    }
    return first;
  }

  private static long onTopic(State s, int event) {
    return s.topic.stream().filter(copy -> copy.startsWith(event + "=")).count();
  }

  private Optional<String> check(State s) {
    for (int i = 0; i < s.written; i++) {
      Set<String> idsOnTopic = new LinkedHashSet<>();
      for (String copy : s.topic) {
        if (copy.startsWith(i + "=")) {
          idsOnTopic.add(copy.substring(copy.indexOf('=') + 1));
        }
      }
      if (idsOnTopic.size() > 1) {
        return Optional.of(
            "one MessageId per event: E"
                + (i + 1)
                + " is on the topic under "
                + idsOnTopic.size()
                + " MessageIds, so its consumers' markers cannot recognise the copies");
      }
    }
    boolean quiet = s.written == events && s.phase == Phase.IDLE && s.checkpoint == s.written;
    if (quiet) {
      for (int i = 0; i < events; i++) {
        if (onTopic(s, i) == 0) {
          return Optional.of(
              "nothing lost: the relay's checkpoint is past E"
                  + (i + 1)
                  + " but it never reached the topic");
        }
      }
    }
    return Optional.empty();
  }
}
