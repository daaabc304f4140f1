package io.idemworker.emulator.cosmos;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed query of the supported subset. {@code selectAll} is {@code SELECT *}; otherwise {@code
 * projections} lists the selected expressions ({@code value} = {@code SELECT VALUE}, exactly one).
 * {@code top}, {@code offset} and {@code limit} are integer literals or parameters. {@code
 * aggregates} lists the aggregate calls of the SELECT clause in order (a query with any returns one
 * row, or one per group with {@code groupBy}). {@code from} is empty for a query without FROM
 * ({@code SELECT VALUE 1}), which yields one row. {@code alias} names the container's documents
 * (empty when the query does not read the container). {@code source} keeps the texts of the
 * clauses, from which {@link QueryPlanner} writes the queries an SDK sends to each partition key
 * range.
 */
record SqlQuery(
    String alias,
    Optional<From> from,
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
    Objects.requireNonNull(from, "from");
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

  /** Whether the query reads the container's documents (else it yields the same rows anywhere). */
  boolean scansContainer() {
    return from.map(f -> f.root().scansContainer()).orElse(false);
  }

  /** The aliases {@code SELECT *} returns, in FROM order. */
  List<String> visibleAliases() {
    return from.map(From::visibleAliases).orElse(List.of());
  }

  /**
   * The FROM clause: a root source and the sources joined to it ({@code JOIN alias IN expression},
   * {@code JOIN (sub-query) alias}); each row of the query binds every alias once, the joins
   * repeating the row for each value of theirs (a cross product per document).
   */
  record From(FromItem root, List<FromItem> joins) {
    From {
      joins = List.copyOf(joins);
    }

    List<String> visibleAliases() {
      List<String> out = new java.util.ArrayList<>();
      if (!(root instanceof ContainerSource c && c.hidden())) {
        out.add(root.alias());
      }
      joins.forEach(j -> out.add(j.alias()));
      return out;
    }
  }

  /** Where the values an alias binds come from. */
  sealed interface FromItem {
    String alias();

    default boolean scansContainer() {
      return false;
    }
  }

  /**
   * The container's documents. {@code hidden} for {@code FROM x IN c.children}, where the container
   * is named only to reach into it and {@code SELECT *} returns {@code x} alone.
   */
  record ContainerSource(String alias, boolean hidden) implements FromItem {
    @Override
    public boolean scansContainer() {
      return true;
    }
  }

  /** {@code alias IN expression}: each element of the array the expression yields. */
  record InSource(String alias, SqlExpression collection) implements FromItem {}

  /** {@code (SELECT …) alias}: each row of the sub-query, run with the outer bindings. */
  record SubquerySource(String alias, SqlQuery query) implements FromItem {
    @Override
    public boolean scansContainer() {
      return query.scansContainer();
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
