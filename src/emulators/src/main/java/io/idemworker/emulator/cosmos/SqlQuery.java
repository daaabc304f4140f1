package io.idemworker.emulator.cosmos;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed query of the supported subset. {@code selectAll} is {@code SELECT *}; otherwise {@code
 * projections} lists the selected expressions ({@code value} = {@code SELECT VALUE}, exactly one).
 * {@code top}, {@code offset} and {@code limit} are integer literals or parameters.
 */
record SqlQuery(
    String alias,
    Optional<SqlExpression> top,
    boolean value,
    boolean selectAll,
    List<Projection> projections,
    Optional<SqlExpression> where,
    Optional<OrderBy> orderBy,
    Optional<SqlExpression> offset,
    Optional<SqlExpression> limit) {
  SqlQuery {
    Objects.requireNonNull(alias, "alias");
    projections = List.copyOf(projections);
    if (selectAll == !projections.isEmpty()) {
      throw new IllegalArgumentException("either SELECT * or projections");
    }
    if (value && projections.size() != 1) {
      throw new IllegalArgumentException("SELECT VALUE takes one expression");
    }
  }

  /** One selected expression and the property name it is written under. */
  record Projection(SqlExpression expression, String name) {}

  /** The sort key (a property path) and direction. */
  record OrderBy(SqlExpression key, boolean descending) {}
}
