package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AnchoredSeedTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Change.TargetRules RULES =
      new Change.TargetRules(
          new Change.Rejection(new DeadLetterReason("TargetGone"), "target missing"),
          new Change.Rejection(new DeadLetterReason("Refused"), "refused"));

  private static ObjectNode doc(String id) {
    ObjectNode node = JSON.objectNode();
    node.put("id", id);
    return node;
  }

  private static WriteSet counting(String target) {
    ObjectNode marker = doc("inbox:c:k");
    return WriteSet.of(
        "p",
        Fingerprint.of(marker),
        marker,
        List.of(),
        List.of(
            new DocumentPatch(
                target, List.of(new DocumentPatch.Increment("n", 1)), Optional.empty())));
  }

  @Test
  void seedWithoutAPatchOfItsId_isRefused() {
    assertThatThrownBy(
            () -> new Change.Anchored(counting("t"), Optional.of(RULES), List.of(doc("other"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seed");
  }

  @Test
  void targetStillMissingAfterSeeding_isRetriedAsNotYet() {
    // given a store that loses every seed (as if it were deleted right after its create)
    InMemoryEffectStore memory = new InMemoryEffectStore();
    EffectStore forgetful =
        new ForwardingEffectStore(memory) {
          @Override
          public WriteResult apply(WriteSet writeSet) {
            return writeSet.anchorId().equals("t") ? new Applied() : super.apply(writeSet);
          }
        };
    Change.Anchored change =
        new Change.Anchored(counting("t"), Optional.of(RULES), List.of(doc("t")));
    IdempotentConsumer.Attempt attempt =
        new IdempotentConsumer.Attempt(new IdempotencyKey("k"), "p", false);

    Outcome outcome =
        AnchoredWrite.apply(forgetful, change, change.writeSet().fingerprint(), attempt);

    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Retry.class,
            retry -> assertThat(retry.cause()).isEqualTo(Outcome.RetryCause.NOT_YET));
    assertThat(memory.documentCount()).isZero();
  }
}
