package io.idemworker.core;

import java.util.Objects;

/**
 * An {@link EffectStore} that passes every call to another store. A test overrides the calls it
 * breaks, delays or watches and leaves the rest to this class; {@link StoreFaults} makes the shapes
 * tests use most often.
 *
 * <p>{@link #findAnchor} is not forwarded: the port's default reads through {@link #read}, so an
 * override of {@code read} is seen by the flow's look-up of an anchor too.
 */
public class ForwardingEffectStore implements EffectStore {
  private final EffectStore delegate;

  /**
   * Forwards to {@code delegate}.
   *
   * @param delegate the store every call goes to
   */
  public ForwardingEffectStore(EffectStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /**
   * The store every call goes to.
   *
   * @return the delegate
   */
  protected final EffectStore delegate() {
    return delegate;
  }

  @Override
  public WriteResult apply(WriteSet writeSet) {
    return delegate.apply(writeSet);
  }

  @Override
  public UpdateResult update(String partitionKey, DocumentPatch patch) {
    return delegate.update(partitionKey, patch);
  }

  @Override
  public ReadResult read(String partitionKey, String id) {
    return delegate.read(partitionKey, id);
  }
}
