package io.idemworker.emulator.cosmos;

import java.util.LinkedHashMap;
import java.util.Map;

/** A response under construction: status, headers in order, optional body, request charge. */
final class HttpReply {
  final int status;
  final byte[] body;
  final double charge;
  final Map<String, String> headers = new LinkedHashMap<>();

  HttpReply(int status, byte[] body, double charge) {
    this.status = status;
    this.body = body;
    this.charge = charge;
  }

  HttpReply header(String name, String value) {
    headers.put(name, value);
    return this;
  }
}
