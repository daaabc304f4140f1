package io.idemworker.emulator.cosmos;

import java.util.List;
import java.util.Locale;

/**
 * The {@code x-ms-documentdb-query-metrics} header of a query page, sent when the request asks for
 * it ({@code x-ms-documentdb-populatequerymetrics: true}, which the Java SDK sends unless {@code
 * setQueryMetricsEnabled(false)}). In the service's {@code name=value;…} form, which the SDK parses
 * into {@code QueryMetrics}. The times are the emulator's own phases, measured: compiling is
 * parsing the SQL, the logical plan is resolving what the request scopes (partition key or range),
 * loading is collecting that scope's documents, evaluating is filtering, sorting, projecting and
 * aggregating them, writing output is building the page. As on the service, the VM execution time
 * spans loading, evaluating and writing: the SDK derives the query engine's own time by taking load
 * and write time off it. There is no index, so index lookup time, physical planning and
 * optimisation are 0 and the index utilisation ratio is 0.
 *
 * @param compileNanos parsing
 * @param logicalPlanNanos resolving the scope
 * @param loadNanos collecting the scope's documents
 * @param vmNanos evaluating the query over them (the query engine's own time)
 * @param writeNanos building the page
 * @param retrieved the documents read
 * @param retrievedBytes their JSON size
 * @param output the rows on the page
 * @param outputBytes the page's JSON size
 */
record QueryMetricsHeader(
    long compileNanos,
    long logicalPlanNanos,
    long loadNanos,
    long vmNanos,
    long writeNanos,
    int retrieved,
    long retrievedBytes,
    int output,
    long outputBytes) {
  static final String REQUEST = "x-ms-documentdb-populatequerymetrics";
  static final String RESPONSE = "x-ms-documentdb-query-metrics";

  /** Whether the request asks for the header. */
  static boolean requested(HttpRequest h) {
    return RequestHeaders.isTrue(h, REQUEST);
  }

  /** The JSON size of {@code items}. */
  static long bytes(List<StoredItem> items) {
    long total = 0;
    for (StoredItem item : items) {
      total += item.json().length;
    }
    return total;
  }

  /** The header's value. */
  String value() {
    long total = compileNanos + logicalPlanNanos + loadNanos + vmNanos + writeNanos;
    return "totalExecutionTimeInMs="
        + ms(total)
        + ";queryCompileTimeInMs="
        + ms(compileNanos)
        + ";queryLogicalPlanBuildTimeInMs="
        + ms(logicalPlanNanos)
        + ";queryPhysicalPlanBuildTimeInMs=0;queryOptimizationTimeInMs=0"
        + ";VMExecutionTimeInMs="
        + ms(loadNanos + vmNanos + writeNanos)
        + ";indexLookupTimeInMs=0"
        + ";documentLoadTimeInMs="
        + ms(loadNanos)
        + ";systemFunctionExecuteTimeInMs=0;userFunctionExecuteTimeInMs=0"
        + ";retrievedDocumentCount="
        + retrieved
        + ";retrievedDocumentSize="
        + retrievedBytes
        + ";outputDocumentCount="
        + output
        + ";outputDocumentSize="
        + outputBytes
        + ";writeOutputTimeInMs="
        + ms(writeNanos)
        + ";indexUtilizationRatio=0";
  }

  /** Milliseconds with nanosecond precision; a measured phase never reads as 0. */
  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.6f", Math.max(nanos, 1) / 1_000_000.0);
  }
}
