package io.idemworker.emulator.cosmos;

/**
 * The kinds of request the emulator tells apart, for {@link Faults fault injection} and {@link
 * RequestStats counting}.
 */
public enum Operation {
  /** Item create ({@code POST …/docs}). */
  CREATE,
  /** Item point read ({@code GET …/docs/{id}}). */
  READ,
  /** Item upsert ({@code POST …/docs} with {@code x-ms-documentdb-is-upsert: true}). */
  UPSERT,
  /** Item replace ({@code PUT …/docs/{id}}). */
  REPLACE,
  /** Item delete ({@code DELETE …/docs/{id}}). */
  DELETE,
  /** Item patch ({@code PATCH …/docs/{id}}). */
  PATCH,
  /** Change feed ({@code GET …/docs} with {@code A-IM: Incremental feed}). */
  CHANGE_FEED,
  /** Query and its query plan ({@code POST …/docs} with a query body). */
  QUERY,
  /** Transactional batch ({@code POST …/docs} with {@code x-ms-cosmos-is-batch-request}). */
  BATCH,
  /** Account, database, container and partition-key-range requests. */
  METADATA,
  /**
   * Queries of databases or containers, read feed of items and unknown paths: all answered with
   * errors.
   */
  UNSUPPORTED
}
