package io.idemworker.consumers;

import io.idemworker.core.DeadLetterReason;

/** The dead-letter reasons only the customer consumers give, beside {@link DeadLetterReason}'s. */
public final class CustomerReasons {
  /**
   * The customer's document was still missing after it was seeded (deleted in between), on the last
   * delivery allowed.
   */
  public static final DeadLetterReason CUSTOMER_DOCUMENT_MISSING =
      new DeadLetterReason("CustomerDocumentMissing");

  private CustomerReasons() {}
}
