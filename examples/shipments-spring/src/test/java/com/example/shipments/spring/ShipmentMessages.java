package com.example.shipments.spring;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;

/** The messages the example's tests send, and a one-off sender for them. */
final class ShipmentMessages {
  private ShipmentMessages() {}

  /** The body of a {@code ShipmentCreated} for {@code id}: Rotterdam to Lyon. */
  static String createdBody(String id) {
    return "{\"shipmentId\":\""
        + id
        + "\",\"origin\":\"Rotterdam\",\"destination\":\"Lyon\","
        + "\"createdAt\":\"2026-11-30T10:00:00Z\"}";
  }

  /** A {@code ShipmentCreated} for {@code id}, its MessageId the shipment's id. */
  static ServiceBusMessage created(String id) {
    return new ServiceBusMessage(createdBody(id))
        .setMessageId(id)
        .setSubject("ShipmentCreated")
        .setContentType("application/json");
  }

  /** Sends {@code message} to {@code queue} through a sender of its own. */
  static void send(String connectionString, String queue, ServiceBusMessage message) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .sender()
            .queueName(queue)
            .buildClient()) {
      sender.sendMessage(message);
    }
  }
}
