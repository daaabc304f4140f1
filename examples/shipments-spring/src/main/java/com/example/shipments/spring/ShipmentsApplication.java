package com.example.shipments.spring;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.azure.MessageType;
import io.idemworker.core.DocumentPatch;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The shipments consumer as a Spring Boot application: its message types are beans, the starter
 * builds, starts and drains the worker; where it reads and writes is in application.properties.
 */
@SpringBootApplication
public class ShipmentsApplication {

  /**
   * Runs the application.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    SpringApplication.run(ShipmentsApplication.class, args);
  }

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

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
   * {@code ShipmentCreated}, keyed by the shipment id: the document is its own duplicate check.
   *
   * @return the type
   */
  @Bean
  public MessageType<ShipmentCreated> shipmentCreated() {
    return MessageType.of("ShipmentCreated", ShipmentCreated.class)
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
              shipment.putArray("scans");
              shipment.put("scanCount", 0);
              return shipment;
            });
  }

  /**
   * {@code ShipmentScanned}, keyed by the scan id: appended once, behind an inbox marker.
   *
   * @return the type
   */
  @Bean
  public MessageType<ShipmentScanned> shipmentScanned() {
    return MessageType.of("ShipmentScanned", ShipmentScanned.class)
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
  }

  /**
   * A registry for the worker's counters (an application with Actuator's metrics has one already,
   * exported to Prometheus or Azure Monitor).
   *
   * @return the registry
   */
  @Bean
  public MeterRegistry meterRegistry() {
    return new SimpleMeterRegistry();
  }
}
