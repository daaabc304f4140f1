package io.idemworker.emulator.cosmos;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed query of the supported subset. {@code selectAll} is {@code SELECT *}; otherwise {@code
 * projections} lists the selected expressions ({@code value} = {@code SELECT VALUE}, exactly one).
 * {@code top}, {@code offset} and {@code limit} are integer literals or parameters. {@code
 * aggregates} lists the aggregate calls of the SELECT clause in order (a query with any returns one
 * row, or one per group with {@code groupBy}). {@code source} keeps the texts of the clauses, from
 * which {@link QueryPlanner} writes the queries an SDK sends to each partition key range.
 */
record SqlQuery(
    String alias,
    Optional<SqlExpression> top,
    boolean distinct,
    boolean value,
    boolean selectAll,
    List<Projection> projections,
    Optional<SqlExpression> where,
    List<GroupBy> groupBy,
    List<OrderBy> orderBy,
    Optional<SqlExpression> offset,
    Optional<SqlExpression> limit,
    List<SqlExpression.Aggregate> aggregates,
    Source source) {
  SqlQuery {
    Objects.requireNonNull(alias, "alias");
    projections = List.copyOf(projections);
    groupBy = List.copyOf(groupBy);
    orderBy = List.copyOf(orderBy);
    aggregates = List.copyOf(aggregates);
    if (selectAll == !projections.isEmpty()) {
      throw new IllegalArgumentException("either SELECT * or projections");
    }
    if (value && projections.size() != 1) {
      throw new IllegalArgumentException("SELECT VALUE takes one expression");
    }
  }

  /** One selected expression, the property name it is written under, and its text. */
  record Projection(SqlExpression expression, String name, String text) {}

  /**
   * One {@code GROUP BY} expression and its text. A query with any returns one row per distinct
   * combination of their values (undefined counts as a value), its aggregates taken over that
   * group.
   */
  record GroupBy(SqlExpression key, String text) {}

  /** One sort key (a property path), its direction, and its text. */
  record OrderBy(SqlExpression key, boolean descending, String text) {}

  /**
   * Texts of the clauses as written: {@code from} is what follows {@code FROM}, {@code where} the
   * condition, {@code beforeOffset} everything before {@code OFFSET} (the whole text without one).
   */
  record Source(String text, String from, Optional<String> where, String beforeOffset) {}
}
