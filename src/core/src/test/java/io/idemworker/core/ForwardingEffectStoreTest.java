package io.idemworker.core;

/** A store that only forwards keeps the contract of the store it forwards to. */
class ForwardingEffectStoreTest extends EffectStoreContract {
  private final EffectStore store = new ForwardingEffectStore(new InMemoryEffectStore());

  @Override
  protected EffectStore store() {
    return store;
  }
}
