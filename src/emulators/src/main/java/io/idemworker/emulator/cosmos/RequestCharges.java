package io.idemworker.emulator.cosmos;

/**
 * A request-charge model calibrated against the figures Microsoft publishes for the service with
 * the default indexing policy and session consistency ("understand request unit consumption": a
 * point read of 1 KB costs 1.00 RU, of 2 KB 1.04, of 8 KB 1.33 …; a write of 1 KB 4.95 RU, of 2 KB
 * 6.29, of 8 KB 7.04 …). A size between two published sizes is charged on the straight line between
 * their figures, a size under 1 KB as 1 KB. A miss or a failed precondition costs about 1 RU, a
 * conflict 1.24, metadata 1 RU; queries and deletes, for which no table is published, keep this
 * emulator's own estimates. Figures are rounded to 2 decimals.
 *
 * <p>Stateless and thread-safe.
 */
final class RequestCharges {
  static final double METADATA = 1.0;
  static final double MISS = 1.0;
  static final double CONFLICT = 1.24;

  /** The published document sizes, in KB of 1,024 bytes. */
  private static final double[] SIZES_KB = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};

  private static final double[] READ_RU = {
    1.00, 1.04, 1.14, 1.33, 1.67, 2.19, 4.76, 9.95, 20.28, 40.95, 145.90, 291.80
  };

  private static final double[] WRITE_RU = {
    4.95, 6.29, 6.67, 7.04, 9.52, 11.23, 22.67, 48.19, 98.29, 184.57, 625.00, 1250.00
  };

  private RequestCharges() {}

  /** A point read (or a document returned by the change feed) of {@code bytes}. */
  static double read(int bytes) {
    return round(interpolate(READ_RU, bytes));
  }

  /** A create, replace, upsert or patch that stores a document of {@code bytes}. */
  static double write(int bytes) {
    return round(interpolate(WRITE_RU, bytes));
  }

  /** A query page: a base of 2.3 RU, plus 1 RU per started KiB of the page after the first. */
  static double query(int pageBytes) {
    return round(2.3 + kib(pageBytes) - 1);
  }

  static double delete(int bytes) {
    return round(4.95 + 0.52 * kib(bytes));
  }

  private static double interpolate(double[] charges, int bytes) {
    double kb = Math.max(1.0, bytes / 1024.0);
    int last = SIZES_KB.length - 1;
    int upper = 1;
    while (upper < last && SIZES_KB[upper] < kb) {
      upper++;
    }
    int lower = upper - 1;
    double slope = (charges[upper] - charges[lower]) / (SIZES_KB[upper] - SIZES_KB[lower]);
    return charges[lower] + slope * (kb - SIZES_KB[lower]);
  }

  private static int kib(int bytes) {
    return Math.max(1, (bytes + 1023) / 1024);
  }

  static double round(double charge) {
    return Math.round(charge * 100.0) / 100.0;
  }
}
