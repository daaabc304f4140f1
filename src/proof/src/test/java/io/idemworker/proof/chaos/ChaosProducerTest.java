package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.proof.producer.DemoScenario;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The chaos producer's pacing contract, without brokers or workers. */
class ChaosProducerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The 100k run with the HTTP source failed because an HTTP order's credits, statuses, payments
   * and reused id reached the queue before its post was answered. The producer therefore names, for
   * every step, the HTTP orders that must have their answer before the step sends: every dependent
   * of an HTTP order must be covered by such a wait, after the step that posted it.
   */
  @Test
  void everyDependentOfAnHttpOrder_isSentOnlyInAStepThatFirstAwaitsItsAnswer() {
    DemoScenario scenario = DemoScenario.generate(4000, 7, ChaosCommand.MAX_BODY_BYTES);
    ChaosProducer producer = new ChaosProducer(scenario, 13);
    Map<String, Integer> postedAt = new HashMap<>();
    Set<String> answered = new HashSet<>();
    List<String> violations = new ArrayList<>();
    int dependents = 0;

    for (int s = 0; s < producer.steps(); s++) {
      ChaosProducer.Step step = producer.step(s);
      for (String orderId : step.httpAnsweredFirst()) {
        assertThat(postedAt.get(orderId))
            .as("posted before it is awaited: " + orderId)
            .isLessThan(s);
        assertThat(answered.add(orderId)).as("awaited once: " + orderId).isTrue();
      }
      List<ChaosProducer.Tagged> sent = new ArrayList<>(step.beforeAdvance());
      sent.addAll(step.afterAdvance());
      for (ChaosProducer.Tagged t : sent) {
        Optional<String> orderId = orderIdOf(t);
        if (orderId.isEmpty() || !postedAt.containsKey(orderId.get()) || !dependent(t)) {
          continue;
        }
        dependents++;
        if (!answered.contains(orderId.get())) {
          violations.add("step " + s + ": " + t.kind() + " " + t.source() + " of " + orderId.get());
        }
      }
      for (ChaosHttp.Order o : step.http()) {
        postedAt.put(o.orderId(), s);
      }
    }

    assertThat(postedAt).hasSize(producer.httpOrders()).isNotEmpty();
    assertThat(dependents).isPositive();
    assertThat(violations).isEmpty();
    assertThat(answered).isEqualTo(postedAt.keySet());
  }

  @Test
  void httpClientThreads_growWithTheHttpShareWithinBounds() {
    assertThat(ChaosHttp.threadsFor(50)).isEqualTo(8);
    assertThat(ChaosHttp.threadsFor(600)).isEqualTo(15);
    assertThat(ChaosHttp.threadsFor(2952)).isEqualTo(64);
  }

  /** Anything that needs the order to exist first: all but a copy of the order itself. */
  private static boolean dependent(ChaosProducer.Tagged t) {
    return !t.kind().equals(OrderMessageTypes.SUBJECTS.get(0))
        || t.source() == ChaosProducer.Source.KEY_REUSE;
  }

  private static Optional<String> orderIdOf(ChaosProducer.Tagged t) {
    try {
      JsonNode body = JSON.readTree(t.message().getBody().toBytes());
      return Optional.ofNullable(body.path("orderId").textValue());
    } catch (IOException e) {
      return Optional.empty(); // poison
    }
  }
}
