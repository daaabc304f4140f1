package io.idemworker.proof.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The latency bound of one worker process on new orders: how many messages a second its concurrent
 * calls can settle when each waits out its round trips and nothing else.
 *
 * <p>One concurrent call handles a new order as: receive (prefetch 0: the processor gives a credit
 * when the call is free and the message arrives one receive latency later) → store ({@code
 * storeTrips} Cosmos DB round trips; a new order is one transactional batch) → settle (the complete
 * waits for the broker's answer). So with prefetch 0 the bound is {@code concurrency / (receive +
 * storeTrips × store + settle)}. With prefetch the receive overlaps the work of the calls, so the
 * bound is {@code concurrency / (storeTrips × store + settle)}, unless the prefetched messages
 * cannot come fast enough: at most {@code prefetch / receive} a second arrive with that much credit
 * out (Little's law), so the bound is the smaller of the two.
 *
 * @param receive a delivery's latency after its credit
 * @param store one Cosmos DB round trip
 * @param settle a settlement's round trip
 * @param storeTrips Cosmos DB round trips per message on the path measured
 */
record BoundModel(Duration receive, Duration store, Duration settle, int storeTrips) {
  BoundModel {
    Objects.requireNonNull(receive, "receive");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(settle, "settle");
    if (receive.isNegative() || store.isNegative() || settle.isNegative() || storeTrips < 1) {
      throw new IllegalArgumentException("latencies must not be negative, storeTrips >= 1");
    }
  }

  /**
   * Messages a second, infinite when every latency on the path is zero.
   *
   * @param concurrency concurrent calls, at least 1
   * @param prefetch messages fetched ahead, 0 or more
   */
  double bound(int concurrency, int prefetch) {
    return bound(concurrency, prefetch, Duration.ZERO);
  }

  /**
   * The bound with the CPU a message costs on its call's path: while the cores are not saturated
   * every message's CPU (the run process's and the emulators', one after the other along the path)
   * adds to its call's round trips, so at low concurrency {@code concurrency / (round trips + cpu)}
   * is what the calls can reach. This is not the bound; it explains a gap to it.
   *
   * @param concurrency concurrent calls, at least 1
   * @param prefetch messages fetched ahead, 0 or more
   * @param cpu CPU per message on the path, not negative
   */
  double bound(int concurrency, int prefetch, Duration cpu) {
    if (concurrency < 1 || prefetch < 0 || cpu.isNegative()) {
      throw new IllegalArgumentException("concurrency >= 1, prefetch >= 0, cpu >= 0");
    }
    double work = seconds(store) * storeTrips + seconds(settle) + seconds(cpu);
    if (prefetch == 0) {
      return concurrency / (seconds(receive) + work);
    }
    double byCalls = concurrency / work;
    double byPrefetch = receive.isZero() ? Double.POSITIVE_INFINITY : prefetch / seconds(receive);
    return Math.min(byCalls, byPrefetch);
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "bound: prefetch 0 -> concurrency / (receive %.1f + %d x store %.1f + settle %.1f ms);"
            + " prefetch > 0 -> min(concurrency / (%d x store + settle), prefetch / receive)",
        seconds(receive) * 1000,
        storeTrips,
        seconds(store) * 1000,
        seconds(settle) * 1000,
        storeTrips);
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
