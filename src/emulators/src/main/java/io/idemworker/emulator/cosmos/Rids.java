package io.idemworker.emulator.cosmos;

import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * Resource ids in the layout the SDK's {@code ResourceId.tryParse} expects: a database is a 4-byte
 * big-endian int, a container appends 4 bytes with the top bit set, a document or partition key
 * range appends 8 bytes whose last high nibble is the child type; base64 with '/' written as '-'.
 */
final class Rids {
  private static final int DOCUMENT = 0x0;
  private static final int PARTITION_KEY_RANGE = 0x5;

  private Rids() {}

  static byte[] database(int number) {
    return ByteBuffer.allocate(4).putInt(number).array();
  }

  static byte[] container(byte[] database, int number) {
    return ByteBuffer.allocate(8).put(database).putInt(number | 0x80000000).array();
  }

  static byte[] document(byte[] container, long number) {
    return child(container, number, DOCUMENT);
  }

  static byte[] partitionKeyRange(byte[] container, long number) {
    return child(container, number, PARTITION_KEY_RANGE);
  }

  private static byte[] child(byte[] container, long number, int type) {
    return ByteBuffer.allocate(16)
        .put(container)
        .putLong((number << 8) | ((long) type << 4))
        .array();
  }

  /**
   * The order the SDK gives the document RID of sequence number {@code number}: it reads the eight
   * document bytes little-endian ({@code ResourceId.getDocument()}), so this is not the creation
   * order once numbers pass 255.
   */
  static long sdkDocumentOrder(long number) {
    return Long.reverseBytes((number << 8) | ((long) DOCUMENT << 4));
  }

  /** The sequence number inside a document RID made by {@link #document}. */
  static long documentNumber(String documentRid) {
    byte[] bytes = Base64.getDecoder().decode(documentRid.replace('-', '/'));
    return ByteBuffer.wrap(bytes, 8, 8).getLong() >>> 8;
  }

  static String text(byte[] rid) {
    return Base64.getEncoder().encodeToString(rid).replace('/', '-');
  }
}
