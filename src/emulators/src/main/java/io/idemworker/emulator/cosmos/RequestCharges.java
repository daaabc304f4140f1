package io.idemworker.emulator.cosmos;

/**
 * A request-charge model close to the service's with the default indexing policy: a point read
 * costs 1 RU per started KiB, a write about 5.7 RU for 1 KiB plus about 0.8 RU per further KiB, a
 * miss or a failed precondition about 1 RU, metadata 1 RU. Figures are rounded to 2 decimals.
 */
final class RequestCharges {
  static final double METADATA = 1.0;
  static final double MISS = 1.0;
  static final double CONFLICT = 1.24;

  private RequestCharges() {}

  static double read(int bytes) {
    return kib(bytes);
  }

  static double write(int bytes) {
    return round(4.95 + 0.76 * kib(bytes));
  }

  /** A query page: a base of 2.3 RU, plus 1 RU per started KiB of the page after the first. */
  static double query(int pageBytes) {
    return round(2.3 + kib(pageBytes) - 1);
  }

  static double delete(int bytes) {
    return round(4.95 + 0.52 * kib(bytes));
  }

  private static int kib(int bytes) {
    return Math.max(1, (bytes + 1023) / 1024);
  }

  static double round(double charge) {
    return Math.round(charge * 100.0) / 100.0;
  }
}
