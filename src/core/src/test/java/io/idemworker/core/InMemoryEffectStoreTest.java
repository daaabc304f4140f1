package io.idemworker.core;

class InMemoryEffectStoreTest extends EffectStoreContract {
  private final InMemoryEffectStore store = new InMemoryEffectStore();

  @Override
  protected EffectStore store() {
    return store;
  }
}
