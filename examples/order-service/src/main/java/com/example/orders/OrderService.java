package com.example.orders;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;

/**
 * Takes orders from a Service Bus queue and stores each once in Cosmos DB: the create of the order
 * document is the duplicate check (a 409 means an earlier copy already stored it). A message that
 * cannot be read is dead-lettered; a store failure abandons the message so the broker redelivers
 * it. Not thread-safe: one instance per receiver.
 */
public final class OrderService {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What happened to one message. */
  public enum Outcome {
    STORED,
    DUPLICATE,
    DEAD_LETTERED,
    RETRIED
  }

  private final ServiceBusReceiverClient receiver;
  private final CosmosContainer orders;

  /**
   * @param receiver a peek-lock receiver on the orders queue
   * @param orders the container, partitioned on {@code /orderId}
   */
  public OrderService(ServiceBusReceiverClient receiver, CosmosContainer orders) {
    this.receiver = receiver;
    this.orders = orders;
  }

  /** Receives up to {@code max} messages, waiting at most {@code wait}, and handles each. */
  public java.util.List<Outcome> poll(int max, Duration wait) {
    return receiver.receiveMessages(max, wait).stream().map(this::handle).toList();
  }

  Outcome handle(ServiceBusReceivedMessage message) {
    ObjectNode order;
    try {
      JsonNode body = JSON.readTree(message.getBody().toBytes());
      if (!(body instanceof ObjectNode object) || !object.path("orderId").isTextual()) {
        receiver.deadLetter(message);
        return Outcome.DEAD_LETTERED;
      }
      order = object;
    } catch (IOException e) {
      receiver.deadLetter(message);
      return Outcome.DEAD_LETTERED;
    }
    order.put("id", order.get("orderId").asText());
    try {
      orders.createItem(order);
      receiver.complete(message);
      return Outcome.STORED;
    } catch (CosmosException e) {
      if (e.getStatusCode() == 409) {
        receiver.complete(message);
        return Outcome.DUPLICATE;
      }
      receiver.abandon(message);
      return Outcome.RETRIED;
    }
  }
}
