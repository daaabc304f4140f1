package com.example.shipments;

import com.azure.cosmos.CosmosContainer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.azure.IdempotentWorker;
import io.idemworker.azure.MessageType;
import io.idemworker.core.DocumentPatch;
import io.idemworker.servicebus.ServiceBusConnection;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The shipments consumer: a shipment is created once, scans are recorded once each behind an inbox
 * marker, and the delivery is an absolute state behind a version guard; a created shipment is
 * announced on a topic through the outbox. The container is partitioned by {@code /shipmentId}.
 *
 * <p>The message contract (what producers send on the {@code shipments} queue):
 *
 * <table>
 *   <caption>Message types</caption>
 *   <tr><th>Subject</th><th>MessageId (key)</th><th>protection</th></tr>
 *   <tr><td>{@code ShipmentCreated}</td><td>shipmentId</td><td>the document is its own check</td></tr>
 *   <tr><td>{@code ShipmentScanned}</td><td>scanId</td><td>inbox marker + append</td></tr>
 *   <tr><td>{@code ShipmentDelivered}</td><td>{@code {shipmentId}:delivery:{version}}</td>
 *       <td>version guard</td></tr>
 * </table>
 */
public final class Shipments {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The event a created shipment emits. */
  public static final String REGISTERED = "ShipmentRegistered";

  private Shipments() {}

  /**
   * A new shipment.
   *
   * @param shipmentId the shipment
   * @param origin where it leaves from
   * @param destination where it goes
   * @param createdAt when it was created
   */
  public record ShipmentCreated(
      String shipmentId, String origin, String destination, Instant createdAt) {}

  /**
   * A scan of a parcel on its way: relative, so each is recorded once.
   *
   * @param shipmentId the shipment
   * @param scanId the scan's own id
   * @param location where it was scanned
   * @param scannedAt when
   */
  public record ShipmentScanned(
      String shipmentId, String scanId, String location, Instant scannedAt) {}

  /**
   * The delivery, an absolute state with a version: a correction comes with a higher one.
   *
   * @param shipmentId the shipment
   * @param version the delivery record's version, from 1
   * @param deliveredAt when
   * @param signedBy who signed for it
   */
  public record ShipmentDelivered(
      String shipmentId, long version, Instant deliveredAt, String signedBy) {}

  /** {@code ShipmentCreated}: the shipment document, its creation the duplicate check. */
  static final MessageType<ShipmentCreated> CREATED =
      MessageType.of("ShipmentCreated", ShipmentCreated.class)
          .fields(
              f ->
                  f.id("shipmentId")
                      .text("origin", 1, 64)
                      .text("destination", 1, 64)
                      .instant("createdAt"))
          .entity(ShipmentCreated::shipmentId)
          .key("shipmentId", ShipmentCreated::shipmentId)
          .documentType("shipment")
          .creates(
              s -> {
                ObjectNode shipment = JSON.objectNode();
                shipment.put("origin", s.origin());
                shipment.put("destination", s.destination());
                shipment.put("createdAt", s.createdAt().toString());
                shipment.put("status", "Created");
                shipment.putArray("scans");
                shipment.put("scanCount", 0);
                return shipment;
              })
          .emits(
              REGISTERED,
              s ->
                  JSON.objectNode()
                      .put("shipmentId", s.shipmentId())
                      .put("origin", s.origin())
                      .put("destination", s.destination()));

  /** {@code ShipmentScanned}: appended to the shipment's scans once, behind an inbox marker. */
  static final MessageType<ShipmentScanned> SCANNED =
      MessageType.of("ShipmentScanned", ShipmentScanned.class)
          .fields(f -> f.id("shipmentId").id("scanId").text("location", 1, 64).instant("scannedAt"))
          .entity(ShipmentScanned::shipmentId)
          .key("scanId", ShipmentScanned::scanId)
          .changesOnce(
              s ->
                  List.of(
                      new DocumentPatch.AppendToArray(
                          "scans",
                          JSON.objectNode()
                              .put("scanId", s.scanId())
                              .put("location", s.location())
                              .put("scannedAt", s.scannedAt().toString())),
                      new DocumentPatch.Increment("scanCount", 1)));

  /** {@code ShipmentDelivered}: the delivery state, applied when its version is newer. */
  static final MessageType<ShipmentDelivered> DELIVERED =
      MessageType.of("ShipmentDelivered", ShipmentDelivered.class)
          .fields(
              f ->
                  f.id("shipmentId")
                      .integer("version", 1, 1_000_000)
                      .instant("deliveredAt")
                      .text("signedBy", 1, 64))
          .entity(ShipmentDelivered::shipmentId)
          .key("{shipmentId}:delivery:{version}", d -> d.shipmentId() + ":delivery:" + d.version())
          .versioned(
              "deliveryVersion",
              ShipmentDelivered::version,
              d ->
                  Map.<String, JsonNode>of(
                      "status", JSON.textNode("Delivered"),
                      "deliveredAt", JSON.textNode(d.deliveredAt().toString()),
                      "signedBy", JSON.textNode(d.signedBy())));

  /**
   * The shipments worker: the three types on one queue, the events published to a topic.
   *
   * @param connection the Service Bus namespace
   * @param queue the shipments queue
   * @param shipments the container, partitioned by {@code /shipmentId}, TTL on
   * @param eventTopic where {@code ShipmentRegistered} goes
   * @return the builder, to add telemetry, an observer or other settings, then build
   */
  public static IdempotentWorker.Builder worker(
      ServiceBusConnection connection,
      String queue,
      CosmosContainer shipments,
      String eventTopic) {
    return IdempotentWorker.builder()
        .connection(connection)
        .queue(queue)
        .container(shipments)
        .consumerName("shipments")
        .register(CREATED)
        .register(SCANNED)
        .register(DELIVERED)
        .publishEventsTo(eventTopic);
  }
}
