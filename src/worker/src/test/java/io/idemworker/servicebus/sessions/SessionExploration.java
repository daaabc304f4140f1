package io.idemworker.servicebus.sessions;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every schedule of one order's versioned status messages through a session, with crashes,
 * breadth-first: the producer sends the messages (versions 1..n and duplicates) in any order, one
 * at a time; the broker hands the session's active messages to its one holder in the order they
 * were sent; the holder works as {@link HeldSession} does: it records a version whose predecessor
 * has not applied in the session state, then defers it; when the predecessor applies it receives
 * the waiting ones by sequence number and applies them in version order, marking each applied in
 * the session state before completing it, and completes the message that filled the gap last. A
 * crash may come after any of the holder's broker or store operations (session-state write, defer,
 * store write, complete); the broker then releases the session, the message the holder had locked
 * becomes active again (redelivery) and a deferred one it had received stays deferred.
 *
 * <p>The protocol is modelled here with the real {@link SessionState} (each write goes through
 * {@link SessionState#write()} and each accept through {@link SessionState#read}); the Service Bus
 * calls and the flow are not re-run (the flow's idempotency is the other simulation's subject), the
 * store is the order's {@code statusVersion} behind the version guard. Not modelled: the gap
 * timeout (set beyond every schedule), parking, the delivery limit.
 *
 * <p>Invariants after every step: versions apply one after the other from 1 (a version applies only
 * on top of its predecessor, so none is applied twice or out of order). When every message is sent
 * and nothing is active or locked: every message is completed, and the order holds version n, each
 * version applied once.
 *
 * <p>Not thread-safe; one exploration per instance.
 */
final class SessionExploration {
  /** How the holder behaves: as {@link HeldSession}, or a mutant. */
  enum Flow {
    /** Record, then defer; apply waiting ones when ready, lowest version first; gap filler last. */
    REAL,
    /** Defers a message before recording it in the session state (a mutant). */
    DEFER_BEFORE_RECORD,
    /** Applies waiting messages without waiting for their predecessor (a mutant). */
    DRAIN_IGNORES_GAP,
    /** Completes the message that fills a gap before applying the ones waiting on it (a mutant). */
    SETTLE_FILLER_FIRST
  }

  private enum Where {
    UNSENT,
    ACTIVE,
    LOCKED,
    DEFERRED,
    DEFERRED_LOCKED,
    COMPLETED
  }

  /**
   * One state: each message's place and sequence number (0 while unsent), the session state as
   * stored, whether a holder has the session, the stored version, the versions applied in order,
   * sequence numbers handed out, crashes left.
   */
  private record State(
      List<Where> where,
      List<Long> seq,
      String sessionState,
      boolean held,
      long stored,
      List<Long> appliedLog,
      long sent,
      int crashesLeft) {}

  /**
   * The result of one exploration.
   *
   * @param states distinct states
   * @param quiet quiet states checked
   * @param violation the first violation with its schedule, if any
   */
  record Report(int states, int quiet, Optional<List<String>> violation) {
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

  private final List<Long> versions;
  private final Flow flow;

  /**
   * @param versions the versions of the messages the producer sends (a repeated version is a
   *     duplicate); the highest must be their count of distinct versions
   * @param flow the holder's behaviour
   */
  SessionExploration(List<Long> versions, Flow flow) {
    this.versions = List.copyOf(versions);
    this.flow = flow;
  }

  Report explore(int crashes) {
    List<Where> where = new ArrayList<>();
    List<Long> seq = new ArrayList<>();
    for (int i = 0; i < versions.size(); i++) {
      where.add(Where.UNSENT);
      seq.add(0L);
    }
    State start = new State(where, seq, "", false, 0, List.of(), 0, crashes);
    Map<State, State> parent = new HashMap<>();
    Map<State, String> how = new HashMap<>();
    parent.put(start, start);
    ArrayDeque<State> frontier = new ArrayDeque<>(List.of(start));
    int quiet = 0;
    while (!frontier.isEmpty()) {
      State state = frontier.poll();
      Optional<String> broken = checkAlways(state);
      if (broken.isEmpty() && isQuiet(state)) {
        quiet++;
        broken = checkQuiet(state);
      }
      if (broken.isPresent()) {
        List<String> path = new ArrayList<>();
        for (State s = state; s != start; s = parent.get(s)) {
          path.add(0, how.get(s));
        }
        path.add(broken.get());
        return new Report(parent.size(), quiet, Optional.of(path));
      }
      for (Map.Entry<String, State> step : steps(state).entrySet()) {
        if (!parent.containsKey(step.getValue())) {
          parent.put(step.getValue(), state);
          how.put(step.getValue(), step.getKey());
          frontier.add(step.getValue());
        }
      }
    }
    return new Report(parent.size(), quiet, Optional.empty());
  }

  private Optional<String> checkAlways(State s) {
    for (int i = 0; i < s.appliedLog.size(); i++) {
      if (s.appliedLog.get(i) != i + 1) {
        return Optional.of(
            "in order, once each: versions applied "
                + s.appliedLog
                + " (version "
                + (i + 1)
                + " expected next)");
      }
    }
    return Optional.empty();
  }

  private static boolean isQuiet(State s) {
    return s.where.stream()
        .noneMatch(w -> w == Where.UNSENT || w == Where.ACTIVE || w == Where.LOCKED);
  }

  private Optional<String> checkQuiet(State s) {
    for (int i = 0; i < versions.size(); i++) {
      if (s.where.get(i) != Where.COMPLETED) {
        return Optional.of(
            "nothing lost: every message sent and none active, but "
                + name(i)
                + " is "
                + s.where.get(i).name().toLowerCase(java.util.Locale.ROOT)
                + " (stored version "
                + s.stored
                + ")");
      }
    }
    long highest = versions.stream().mapToLong(Long::longValue).max().orElse(0);
    if (s.stored != highest || s.appliedLog.size() != highest) {
      return Optional.of(
          "ends at the highest version: stored "
              + s.stored
              + ", applied "
              + s.appliedLog
              + ", highest sent "
              + highest);
    }
    return Optional.empty();
  }

  private String name(int i) {
    long v = versions.get(i);
    long copy = versions.subList(0, i).stream().filter(x -> x == v).count();
    return "v" + v + (copy == 0 ? "" : "'".repeat((int) copy));
  }

  private Map<String, State> steps(State s) {
    Map<String, State> next = new LinkedHashMap<>();
    for (int i = 0; i < versions.size(); i++) {
      if (s.where.get(i) == Where.UNSENT && firstUnsentCopy(s, i)) {
        Holder h = new Holder(s, Integer.MAX_VALUE);
        h.where.set(i, Where.ACTIVE);
        h.seq.set(i, s.sent + 1);
        h.sent = s.sent + 1;
        next.put("the producer sends " + name(i) + " (seq " + h.sent + ")", h.state());
      }
    }
    boolean anyActive = s.where.contains(Where.ACTIVE);
    if (!s.held && anyActive) {
      unit(s, next, "a worker accepts the session", Holder::open);
    }
    if (s.held && anyActive) {
      int i = lowestActive(s);
      unit(s, next, "the holder handles " + name(i), h -> h.handle(i));
    }
    if (s.held && !anyActive && SessionState.read(bytes(s.sessionState)).gapSince().isEmpty()) {
      Holder h = new Holder(s, Integer.MAX_VALUE);
      h.held = false;
      next.put("the idle session is released", h.state());
    }
    return next;
  }

  /** Copies of one version are interchangeable: only the first unsent one is sent next. */
  private boolean firstUnsentCopy(State s, int i) {
    for (int j = 0; j < i; j++) {
      if (versions.get(j).equals(versions.get(i)) && s.where.get(j) == Where.UNSENT) {
        return false;
      }
    }
    return true;
  }

  private static int lowestActive(State s) {
    int best = -1;
    for (int i = 0; i < s.where.size(); i++) {
      if (s.where.get(i) == Where.ACTIVE && (best < 0 || s.seq.get(i) < s.seq.get(best))) {
        best = i;
      }
    }
    return best;
  }

  /**
   * Adds the unit run to its end, and, while crashes are left, cut after each of its operations.
   */
  private void unit(
      State s, Map<String, State> next, String what, java.util.function.Consumer<Holder> body) {
    Holder whole = new Holder(s, Integer.MAX_VALUE);
    body.accept(whole);
    next.put(what + whole.describe(), whole.state());
    if (s.crashesLeft == 0) {
      return;
    }
    for (int k = 0; k < whole.ops.size(); k++) {
      Holder cut = new Holder(s, k);
      try {
        body.accept(cut);
        throw new IllegalStateException("the unit ran past its crash point");
      } catch (Crash crash) {
        next.put(what + cut.describe() + ", then the worker crashes", cut.crashed());
      }
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Thrown when a unit reaches its crash point. */
  private static final class Crash extends RuntimeException {
    Crash() {
      super(null, null, false, false);
    }
  }

  /**
   * The holder's run of one unit over a mutable copy of a state; stops after {@code budget} ops.
   */
  private final class Holder {
    final List<Where> where;
    final List<Long> seq;
    String stored;
    boolean held;
    long storeVersion;
    final List<Long> appliedLog;
    long sent;
    final int crashesLeft;
    final int budget;
    final List<String> ops = new ArrayList<>();
    SessionState state;

    Holder(State s, int budget) {
      where = new ArrayList<>(s.where);
      seq = new ArrayList<>(s.seq);
      stored = s.sessionState;
      held = s.held;
      storeVersion = s.stored;
      appliedLog = new ArrayList<>(s.appliedLog);
      sent = s.sent;
      crashesLeft = s.crashesLeft;
      this.budget = budget;
      state = SessionState.read(bytes(stored));
    }

    State state() {
      return new State(
          List.copyOf(where),
          List.copyOf(seq),
          stored,
          held,
          storeVersion,
          List.copyOf(appliedLog),
          sent,
          crashesLeft);
    }

    State crashed() {
      for (int i = 0; i < where.size(); i++) {
        if (where.get(i) == Where.LOCKED) {
          where.set(i, Where.ACTIVE);
        } else if (where.get(i) == Where.DEFERRED_LOCKED) {
          where.set(i, Where.DEFERRED);
        }
      }
      return new State(
          List.copyOf(where),
          List.copyOf(seq),
          stored,
          false,
          storeVersion,
          List.copyOf(appliedLog),
          sent,
          crashesLeft - 1);
    }

    String describe() {
      return ops.isEmpty() ? "" : ": " + String.join(", ", ops);
    }

    private void op(String what) {
      if (ops.size() >= budget) {
        throw new Crash();
      }
      ops.add(what);
    }

    private int bySeq(long sequenceNumber) {
      return seq.indexOf(sequenceNumber);
    }

    void open() {
      held = true;
      state = SessionState.read(bytes(stored));
      for (SessionState.Waiting leftover : state.appliedButWaiting()) {
        applyWaiting(leftover);
      }
      drain();
    }

    void handle(int i) {
      where.set(i, Where.LOCKED);
      long version = versions.get(i);
      if (state.applied().isEmpty()) {
        state = state.withApplied(storeVersion);
      }
      if (version > state.applied().getAsLong() + 1) {
        SessionState.Waiting entry =
            new SessionState.Waiting(seq.get(i), version, Instant.EPOCH, false);
        if (flow == Flow.DEFER_BEFORE_RECORD) {
          defer(i);
          state = state.withWaiting(entry);
          writeState();
        } else {
          state = state.withWaiting(entry);
          writeState();
          defer(i);
        }
        return;
      }
      apply(i);
      state = state.withApplied(version);
      writeState();
      if (flow == Flow.SETTLE_FILLER_FIRST) {
        complete(i);
        drain();
      } else {
        drain();
        complete(i);
      }
    }

    private void drain() {
      Optional<SessionState.Waiting> next = state.nextReady(flow == Flow.DRAIN_IGNORES_GAP);
      while (next.isPresent()) {
        applyWaiting(next.get());
        next = state.nextReady(flow == Flow.DRAIN_IGNORES_GAP);
      }
      writeState();
    }

    private void applyWaiting(SessionState.Waiting waiting) {
      int i = bySeq(waiting.sequenceNumber());
      if (i < 0 || where.get(i) != Where.DEFERRED) {
        state = state.without(waiting.sequenceNumber());
        return;
      }
      where.set(i, Where.DEFERRED_LOCKED);
      apply(i);
      state = state.appliedWaiting(waiting);
      writeState();
      complete(i);
      state = state.without(waiting.sequenceNumber());
    }

    /** The flow: the version guard applies a version only above the stored one. */
    private void apply(int i) {
      long version = versions.get(i);
      op("store applies " + name(i) + (version > storeVersion ? "" : " (stale, no change)"));
      if (version > storeVersion) {
        storeVersion = version;
        appliedLog.add(version);
      }
    }

    private void writeState() {
      String text = new String(state.write(), java.nio.charset.StandardCharsets.UTF_8);
      if (!text.equals(stored)) {
        op("session state " + summary(state));
        stored = text;
      }
    }

    private void defer(int i) {
      op("defers " + name(i));
      where.set(i, Where.DEFERRED);
    }

    private void complete(int i) {
      op("completes " + name(i));
      where.set(i, Where.COMPLETED);
    }
  }

  private static String summary(SessionState s) {
    StringBuilder text = new StringBuilder("{applied ").append(s.applied().orElse(0));
    for (SessionState.Waiting w : s.waiting()) {
      text.append(", seq ").append(w.sequenceNumber()).append(" v").append(w.version());
      if (w.applied()) {
        text.append(" applied");
      }
    }
    return text.append('}').toString();
  }
}
