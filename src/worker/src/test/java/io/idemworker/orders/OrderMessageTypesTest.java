package io.idemworker.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.InMemoryEffectStore;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.orders.OrderMessageTypes.MessageType;
import io.idemworker.orders.OrderMessageTypes.Protection;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.OrderFlows;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The registry of message types is the one list the flow, {@code resubmit} and {@code explain}
 * read: each registration's claims hold when its messages run through the flow.
 */
class OrderMessageTypesTest {
  private static final Map<String, Function<String, IncomingMessage>> ONE_MESSAGE_OF =
      Map.of(
          "OrderPlaced", Orders::order,
          "OrderStatusChanged", id -> Orders.status(id, "Shipped", 1),
          "OrderCredited", id -> Orders.credit(id, "cr-" + id, "5.5", "EUR"),
          "PaymentCaptureRequested", id -> Orders.payment(id, "pr-" + id, "3.25", "EUR"));

  private final InMemoryEffectStore store = new InMemoryEffectStore();
  private final IdempotentConsumer consumer =
      TestFlow.of(
              OrderFlows.withPayments(
                  (key, orderId, amount, currency) ->
                      new CaptureAnswer.Captured("cap-" + key, false),
                  Duration.ofSeconds(30)),
              store)
          .clock(new MutableClock(Instant.parse("2026-11-30T12:00:00Z")))
          .build();

  @Test
  void everyRegisteredType_writesTheOrderFieldsItDeclares() {
    assertThat(ONE_MESSAGE_OF.keySet())
        .containsExactlyInAnyOrderElementsOf(OrderMessageTypes.SUBJECTS);
    for (MessageType type : OrderMessageTypes.TYPES) {
      String orderId = "ord-" + type.subject();
      if (type.protection() != Protection.ANCHOR) {
        assertThat(consumer.handle(Orders.order(orderId))).isInstanceOf(Outcome.Processed.class);
      }

      Outcome outcome = consumer.handle(ONE_MESSAGE_OF.get(type.subject()).apply(orderId));

      assertThat(outcome).as(type.subject()).isInstanceOf(Outcome.Processed.class);
      ObjectNode order = store.document(orderId, orderId).orElseThrow();
      assertThat(type.orderFields())
          .as(type.subject() + " declares fields it writes")
          .isNotEmpty()
          .allMatch(order::has);
    }
  }

  @Test
  void onlyTypesWhoseMarkerExpires_areMarkerProtectedForResubmit() {
    for (MessageType type : OrderMessageTypes.TYPES) {
      assertThat(OrderMessageTypes.isMarkerProtected(type.subject()))
          .as(type.subject())
          .isEqualTo(type.protection() == Protection.INBOX_MARKER);
    }
    assertThat(OrderMessageTypes.isMarkerProtected("OrderCredited")).isTrue();
    assertThat(OrderMessageTypes.isMarkerProtected("NoSuchType")).isFalse();
  }

  @Test
  void subjectsAreUnique_andRouteToTheirRegistration() {
    assertThat(OrderMessageTypes.SUBJECTS).doesNotHaveDuplicates();
    for (MessageType type : OrderMessageTypes.TYPES) {
      assertThat(OrderMessageTypes.bySubject(type.subject())).contains(type);
    }
    assertThat(OrderMessageTypes.bySubject("NoSuchType")).isEmpty();
  }
}
