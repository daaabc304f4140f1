package io.idemworker.servicebus.sending;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.app.OrderMessages;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageIdsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ord-1001",
        "ord-1001:status:3",
        "cr-7",
        "pr-9",
        "ord-2026-12-02-000017",
        "ord-3f2a1b4c-9d8e",
        "1764669600000123456",
        "cafebabedeadbeefcafe",
        "inbox:orders:cr-7"
      })
  void businessKeys_areAccepted(String id) {
    assertThat(MessageIds.problem(MessageIds.Rule.BUSINESS_KEY, id)).isEmpty();
  }

  @Test
  void nameBasedUuids_areAccepted_suchAsTheRelaysEventIds() {
    String eventId = OrderDocumentIds.outboxEvent(new IdempotencyKey("ord-1"));
    String v3 =
        UUID.nameUUIDFromBytes("ord-1".getBytes(java.nio.charset.StandardCharsets.UTF_8))
            .toString();

    assertThat(MessageIds.problem(MessageIds.Rule.BUSINESS_KEY, eventId)).isEmpty();
    assertThat(MessageIds.problem(MessageIds.Rule.BUSINESS_KEY, v3)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "9b2f6c1e-3d4a-4f5b-8c7d-0e1f2a3b4c5d",
        "ord-9b2f6c1e-3d4a-4f5b-8c7d-0e1f2a3b4c5d",
        "018f3a2b-7c4d-7e5f-9a0b-1c2d3e4f5a6b",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "9B2F6C1E-3D4A-4F5B-8C7D-0E1F2A3B4C5D"
      })
  void clockOrRandomUuids_areRefusedAsBusinessKeys(String id) {
    assertThat(MessageIds.problem(MessageIds.Rule.BUSINESS_KEY, id))
        .hasValueSatisfying(p -> assertThat(p).contains("MessageId looks random").contains("UUID"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "9b2f6c1e3d4a4f5b8c7d0e1f2a3b4c5d",
        "msg-a3f9c2e17b4d5e60",
        "01HGW2N7EZJ8K4Q5R6S7T8V9WX"
      })
  void hexRunsAndUlids_areRefusedAsBusinessKeys(String id) {
    assertThat(MessageIds.problem(MessageIds.Rule.BUSINESS_KEY, id))
        .hasValueSatisfying(p -> assertThat(p).contains("MessageId looks random"));
  }

  @Test
  void randomLookingIds_passWhenTheProducerVouchesOrTheyAreCloudEventsIds() {
    String random = UUID.randomUUID().toString();

    assertThat(MessageIds.problem(MessageIds.Rule.ASSIGNED_ONCE, random)).isEmpty();
    assertThat(MessageIds.problem(MessageIds.Rule.CLOUD_EVENTS, "/orders|" + random)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  "})
  void emptyIds_areRefusedUnderEveryRule(String id) {
    for (MessageIds.Rule rule : MessageIds.Rule.values()) {
      assertThat(MessageIds.problem(rule, id))
          .hasValueSatisfying(p -> assertThat(p).contains("MessageId is empty"));
    }
    assertThat(MessageIds.problem(MessageIds.Rule.BUSINESS_KEY, null)).isPresent();
  }

  @Test
  void idsLongerThanServiceBusAllows_areRefused() {
    assertThat(MessageIds.problem(MessageIds.Rule.ASSIGNED_ONCE, "k".repeat(129)))
        .hasValueSatisfying(p -> assertThat(p).contains("129 characters"));
    assertThat(MessageIds.problem(MessageIds.Rule.ASSIGNED_ONCE, "k".repeat(128))).isEmpty();
  }

  @Test
  void outgoingMessages_refuseARandomBusinessKeyAtConstruction() {
    assertThatThrownBy(() -> OrderMessages.outgoing(UUID.randomUUID().toString(), "{}", "corr"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("MessageId looks random");
    assertThatThrownBy(() -> Outgoing.cloudEvent("/orders", " ", "OrderPlaced", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cloudEvents:id");
    assertThatThrownBy(() -> OrderMessages.outgoing("ord-1", "{}", "c").withSessionId(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SessionId");
  }
}
