package io.idemworker.core;

/**
 * The identity of one logical message: equal keys mean "the same message again".
 *
 * @param value the key; non-blank, at most 512 characters
 */
public record IdempotencyKey(String value) {

  /** The longest key. */
  public static final int MAX_LENGTH = 512;

  /** Rejects blank and oversized keys. */
  public IdempotencyKey {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("idempotency key must not be blank");
    }
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "idempotency key must be at most " + MAX_LENGTH + " characters");
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
