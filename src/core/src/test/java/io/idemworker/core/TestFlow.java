package io.idemworker.core;

import java.time.Clock;
import java.util.Objects;

/**
 * Builds the {@link IdempotentConsumer} a test runs, with the defaults most tests want: the
 * sender's MessageId as the key, the system clock, bodies up to 256 KiB and Service Bus's default
 * delivery limit. A test names only what it changes:
 *
 * <pre>{@code
 * IdempotentConsumer flow = TestFlow.of(decoder, store).clock(clock).maxDeliveryCount(3).build();
 * }</pre>
 */
public final class TestFlow {
  /** The default body limit, 256 KiB (Service Bus Standard's message size). */
  public static final int DEFAULT_MAX_BODY_BYTES = 256 * 1024;

  private final MessageDecoder decoder;
  private final EffectStore store;
  private KeyStrategy keyStrategy = KeyStrategies.messageId();
  private Clock clock = Clock.systemUTC();
  private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
  private int maxDeliveryCount = IdempotentConsumer.DEFAULT_MAX_DELIVERY_COUNT;

  private TestFlow(MessageDecoder decoder, EffectStore store) {
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * A flow of {@code decoder}'s messages into {@code store}, with the defaults.
   *
   * @param decoder reads and validates bodies
   * @param store the effect store
   * @return the builder
   */
  public static TestFlow of(MessageDecoder decoder, EffectStore store) {
    return new TestFlow(decoder, store);
  }

  /**
   * Derives the idempotency key with {@code keyStrategy} instead of the MessageId.
   *
   * @param keyStrategy the key strategy
   * @return this builder
   */
  public TestFlow keyStrategy(KeyStrategy keyStrategy) {
    this.keyStrategy = Objects.requireNonNull(keyStrategy, "keyStrategy");
    return this;
  }

  /**
   * Stamps acceptance times from {@code clock} instead of the system clock.
   *
   * @param clock the clock
   * @return this builder
   */
  public TestFlow clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * Dead-letters bodies larger than {@code maxBodyBytes}.
   *
   * @param maxBodyBytes the body limit
   * @return this builder
   */
  public TestFlow maxBodyBytes(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
    return this;
  }

  /**
   * The broker's delivery limit, on whose last delivery a message that cannot yet apply is
   * dead-lettered.
   *
   * @param maxDeliveryCount the delivery limit
   * @return this builder
   */
  public TestFlow maxDeliveryCount(int maxDeliveryCount) {
    this.maxDeliveryCount = maxDeliveryCount;
    return this;
  }

  /**
   * The flow.
   *
   * @return a new flow with these settings
   */
  public IdempotentConsumer build() {
    return new IdempotentConsumer(
        keyStrategy, decoder, store, clock, maxBodyBytes, maxDeliveryCount);
  }
}
