package io.idemworker.consumers;

/**
 * The ids of the documents the consumers write, all in partition {@code customerId} of the {@code
 * customers} container. Deterministic, so readers (an audit) find them with point reads.
 */
public final class CustomerDocumentIds {
  /**
   * The field holding the partition key value; the container's partition key path is its {@code
   * /name}.
   */
  public static final String PARTITION_KEY_FIELD = "customerId";

  /** The partition key path of the {@code customers} container. */
  public static final String PARTITION_KEY_PATH = "/" + PARTITION_KEY_FIELD;

  /** Field of the customer document holding the loyalty points. */
  public static final String LOYALTY_POINTS = "loyaltyPoints";

  /** Field of a stats document holding the number of orders. */
  public static final String ORDER_COUNT = "orderCount";

  /** Field of a stats document holding the spend in integer units of 0.0001. */
  public static final String SPENT_UNITS = "spentUnits";

  private CustomerDocumentIds() {}

  /**
   * The customer document, which holds the loyalty points.
   *
   * @param customerId the customer
   * @return the customer id itself
   */
  public static String customer(String customerId) {
    return customerId;
  }

  /**
   * A customer's statistics in one currency.
   *
   * @param customerId the customer
   * @param currency the ISO 4217 code
   * @return {@code {customerId}:stats:{currency}}
   */
  public static String stats(String customerId, String currency) {
    return customerId + ":stats:" + currency;
  }
}
