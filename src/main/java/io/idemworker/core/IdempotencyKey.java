package io.idemworker.core;

/**
 * The identity of one logical message: equal keys mean "the same message again".
 *
 * @param value the key; non-blank, at most 512 characters
 */
public record IdempotencyKey(String value) {

  /** Rejects blank and oversized keys. */
  public IdempotencyKey {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("idempotency key must not be blank");
    }
    if (value.length() > 512) {
      throw new IllegalArgumentException("idempotency key must be at most 512 characters");
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
