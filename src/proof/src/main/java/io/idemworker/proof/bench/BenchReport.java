package io.idemworker.proof.bench;

import io.idemworker.proof.bench.BenchCommand.Contender;
import io.idemworker.proof.bench.BenchCommand.Run;
import io.idemworker.proof.bench.BenchTally.Costs;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Prints the {@code bench} command's rows and its summary. Used from the bench's thread. */
final class BenchReport {
  private final PrintStream out;

  BenchReport(PrintStream out) {
    this.out = out;
  }

  void print(Run run) {
    out.printf(
        Locale.ROOT,
        "%-7s %-15s %6d %7.2f %8.0f %9s %9s %7s %7s %10.3f%n",
        run.round(),
        run.contender().label,
        run.messages(),
        run.seconds(),
        run.perSecond(),
        format("%.2f", run.fresh().roundTripsEach()),
        format("%.2f", run.duplicates().roundTripsEach()),
        format("%.2f", run.fresh().requestChargeEach()),
        format("%.2f", run.duplicates().requestChargeEach()),
        run.cpuMillisPerMessage());
    out.printf(Locale.ROOT, "%-7s   store calls: %s%n", "", run.storeCalls());
    out.printf(
        Locale.ROOT,
        "%-7s   audit (StateAudit, the store): lost %d, doubled %d; applied again (observed): %d%n",
        "",
        run.audit().lost(),
        run.audit().doubled(),
        run.appliedAgain());
    run.relay()
        .ifPresent(
            r ->
                out.printf(
                    Locale.ROOT,
                    "%-7s   relay: %d events in %.2f s, %s RU and %s CPU ms per event; RU per order"
                        + " end to end %s%n",
                    "",
                    r.events(),
                    r.seconds(),
                    format("%.2f", r.requestChargeEach()),
                    format("%.3f", r.cpuMillisEach()),
                    format("%.2f", run.requestChargePerOrder())));
  }

  /** Formats a figure, or "-" when there was nothing to measure (no duplicates sent). */
  private static String format(String format, double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
  }

  /**
   * Prints the summary over the measured rounds.
   *
   * @param underFaults whether a fault plan ran: the round-trip target is then reported, not
   *     enforced
   * @return the exit code: 0 when every run was clean and (without faults) this worker took exactly
   *     1 round trip per new order and 2 per duplicate
   */
  int summary(int rounds, boolean underFaults, List<Run> measured, List<Run> all) {
    List<Run> worker = of(measured, Contender.WORKER);
    List<Run> naive = of(measured, Contender.NAIVE);
    out.printf(
        Locale.ROOT,
        "summary over %d measured round(s)  %15s %15s%n",
        rounds,
        "this worker",
        "naive");
    row(
        "messages/s, median",
        median(worker, Run::perSecond),
        median(naive, Run::perSecond),
        "%.0f");
    row("messages/s, min", min(worker, Run::perSecond), min(naive, Run::perSecond), "%.0f");
    row(
        "store round trips per new order",
        pooled(worker, true, true),
        pooled(naive, true, true),
        "%.2f");
    row(
        "store round trips per duplicate",
        pooled(worker, false, true),
        pooled(naive, false, true),
        "%.2f");
    row("RU per new order", pooled(worker, true, false), pooled(naive, true, false), "%.2f");
    row("RU per duplicate", pooled(worker, false, false), pooled(naive, false, false), "%.2f");
    row(
        "RU per relayed event",
        relayPooled(worker, RelayPhase.Figures::requestCharge),
        Double.NaN,
        "%.2f");
    row(
        "relay CPU ms per event",
        relayPooled(worker, RelayPhase.Figures::cpuMillis),
        Double.NaN,
        "%.3f");
    row("RU per order end to end", median(worker, Run::requestChargePerOrder), Double.NaN, "%.2f");
    row(
        "CPU ms per message, median",
        median(worker, Run::cpuMillisPerMessage),
        median(naive, Run::cpuMillisPerMessage),
        "%.3f");
    row(
        "lost + doubled in the store, all",
        worker.stream().mapToLong(r -> r.audit().lost() + r.audit().doubled()).sum(),
        naive.stream().mapToLong(r -> r.audit().lost() + r.audit().doubled()).sum(),
        "%.0f");
    row(
        "messages applied again, all",
        worker.stream().mapToLong(Run::appliedAgain).sum(),
        naive.stream().mapToLong(Run::appliedAgain).sum(),
        "%.0f");

    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(worker.size(), naive.size()); i++) {
      ratios.add(worker.get(i).perSecond() / naive.get(i).perSecond());
    }
    Collections.sort(ratios);
    double medianRatio = medianOf(ratios);
    out.println();
    out.printf(
        Locale.ROOT,
        "throughput this worker / naive, same round: median %.3f, min %.3f, per round %s%n",
        medianRatio,
        ratios.isEmpty() ? Double.NaN : ratios.get(0),
        ratiosInRoundOrder(worker, naive));
    out.printf(
        Locale.ROOT,
        "throughput target (this worker >= %.0f %% of naive, median of rounds): %s%n",
        BenchCommand.THROUGHPUT_TARGET * 100,
        medianRatio >= BenchCommand.THROUGHPUT_TARGET ? "met" : "NOT met");

    boolean roundTripsExact =
        !worker.isEmpty()
            && worker.stream()
                .allMatch(
                    r ->
                        r.fresh().roundTripsEach() == 1.0
                            && (r.duplicates().deliveries() == 0
                                || r.duplicates().roundTripsEach() == 2.0));
    out.printf(
        Locale.ROOT,
        "round trips: this worker %s per new order, %s per duplicate (target 1.00 / 2.00): %s%n",
        format("%.2f", pooled(worker, true, true)),
        format("%.2f", pooled(worker, false, true)),
        roundTripsExact ? "met" : "NOT met");
    boolean clean = all.stream().allMatch(r -> r.problems().isEmpty());
    if (!clean) {
      out.println("FAILED: some runs had problems (see PROBLEM lines above)");
    }
    return (roundTripsExact || underFaults) && clean ? 0 : 1;
  }

  private String ratiosInRoundOrder(List<Run> worker, List<Run> naive) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < Math.min(worker.size(), naive.size()); i++) {
      parts.add(
          String.format(Locale.ROOT, "%.3f", worker.get(i).perSecond() / naive.get(i).perSecond()));
    }
    return String.join(" ", parts);
  }

  private void row(String what, double worker, double naive, String format) {
    out.printf(
        Locale.ROOT, "  %-33s %15s %15s%n", what, format(format, worker), format(format, naive));
  }

  private static List<Run> of(List<Run> runs, Contender contender) {
    return runs.stream().filter(r -> r.contender() == contender).toList();
  }

  private static double median(List<Run> runs, ToDoubleFunction<Run> value) {
    List<Double> values = new ArrayList<>(runs.stream().map(value::applyAsDouble).toList());
    Collections.sort(values);
    return medianOf(values);
  }

  private static double medianOf(List<Double> sorted) {
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double min(List<Run> runs, ToDoubleFunction<Run> value) {
    return runs.stream().mapToDouble(value).min().orElse(Double.NaN);
  }

  /** A relay figure per relayed event over every measured round that ran the relay. */
  private static double relayPooled(List<Run> runs, ToDoubleFunction<RelayPhase.Figures> value) {
    double total = 0;
    int events = 0;
    for (Run run : runs) {
      if (run.relay().isPresent() && run.relay().get().events() > 0) {
        total += value.applyAsDouble(run.relay().get());
        events += run.relay().get().events();
      }
    }
    return events == 0 ? Double.NaN : total / events;
  }

  /** Round trips or RU per delivery over every measured round's deliveries of a kind. */
  private static double pooled(List<Run> runs, boolean fresh, boolean roundTrips) {
    double total = 0;
    int deliveries = 0;
    for (Run run : runs) {
      Costs costs = fresh ? run.fresh() : run.duplicates();
      if (costs.deliveries() > 0) {
        total +=
            costs.deliveries() * (roundTrips ? costs.roundTripsEach() : costs.requestChargeEach());
        deliveries += costs.deliveries();
      }
    }
    return deliveries == 0 ? Double.NaN : total / deliveries;
  }
}
