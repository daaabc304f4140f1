package io.idemworker.emulator.cosmos;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The effective partition key (hash version 2) of a partition key value: the point of the {@code
 * ""}–{@code "FF"} space where the service, and so the SDK, places a logical partition. The SDK
 * computes it on its side to choose the partition key range it sends a range-scoped request to
 * (read-many, feed-range queries, the change feed of one range), so the emulator must put each
 * logical partition in the range that holds this very point.
 *
 * <p>The value is hashed as the service does for version 2: each component is written as a type
 * marker followed by its bytes (a string as UTF-8 then {@code 0xFF}, a number as the little-endian
 * bits of its double), the bytes are hashed with 128-bit MurmurHash3 (x64 variant, seed 0), the
 * 128-bit result is written big-endian (high word first), its top two bits cleared, as 32
 * upper-case hex digits. Stateless.
 */
final class EffectivePartitionKey {
  private static final int UNDEFINED = 0x00;
  private static final int NULL = 0x01;
  private static final int FALSE = 0x02;
  private static final int TRUE = 0x03;
  private static final int NUMBER = 0x05;
  private static final int STRING = 0x08;

  private EffectivePartitionKey() {}

  /**
   * The effective partition key of the value whose {@link PartitionKeys#canonical canonical text}
   * is {@code canonical}.
   */
  static String of(String canonical) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (String component : canonical.split("\u0000", -1)) {
      write(component, bytes);
    }
    byte[] data = bytes.toByteArray();
    long[] hash = murmur3x64x128(data);
    byte[] out = new byte[16];
    // The 128-bit value (h2 the high word, h1 the low word) is written big-endian.
    for (int i = 0; i < 8; i++) {
      out[i] = (byte) (hash[1] >>> (56 - 8 * i));
      out[8 + i] = (byte) (hash[0] >>> (56 - 8 * i));
    }
    out[0] &= 0x3F;
    return HexFormat.of().withUpperCase().formatHex(out);
  }

  private static void write(String component, ByteArrayOutputStream out) {
    if (component.isEmpty()) {
      out.write(UNDEFINED);
      return;
    }
    char kind = component.charAt(0);
    String rest = component.substring(1);
    switch (kind) {
      case 'z' -> out.write(NULL);
      case 'b' -> out.write(Boolean.parseBoolean(rest) ? TRUE : FALSE);
      case 'n' -> {
        out.write(NUMBER);
        long bits = Double.doubleToLongBits(Double.parseDouble(rest));
        for (int i = 0; i < 8; i++) {
          out.write((int) (bits >>> (8 * i)) & 0xFF);
        }
      }
      case 's' -> {
        out.write(STRING);
        out.writeBytes(rest.getBytes(StandardCharsets.UTF_8));
        out.write(0xFF);
      }
      default -> out.write(UNDEFINED);
    }
  }

  /** MurmurHash3, x64 128-bit variant, seed 0: {@code {h1, h2}}. */
  static long[] murmur3x64x128(byte[] data) {
    final long c1 = 0x87c37b91114253d5L;
    final long c2 = 0x4cf5ad432745937fL;
    long h1 = 0;
    long h2 = 0;
    int blocks = data.length / 16;
    for (int i = 0; i < blocks; i++) {
      long k1 = littleEndianLong(data, i * 16);
      long k2 = littleEndianLong(data, i * 16 + 8);
      k1 *= c1;
      k1 = Long.rotateLeft(k1, 31);
      k1 *= c2;
      h1 ^= k1;
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + 0x52dce729;
      k2 *= c2;
      k2 = Long.rotateLeft(k2, 33);
      k2 *= c1;
      h2 ^= k2;
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = blocks * 16;
    int rest = data.length - tail;
    long k1 = 0;
    long k2 = 0;
    for (int i = rest - 1; i >= 8; i--) {
      k2 ^= (data[tail + i] & 0xFFL) << (8 * (i - 8));
    }
    if (rest > 8) {
      k2 *= c2;
      k2 = Long.rotateLeft(k2, 33);
      k2 *= c1;
      h2 ^= k2;
    }
    for (int i = Math.min(rest, 8) - 1; i >= 0; i--) {
      k1 ^= (data[tail + i] & 0xFFL) << (8 * i);
    }
    if (rest > 0) {
      k1 *= c1;
      k1 = Long.rotateLeft(k1, 31);
      k1 *= c2;
      h1 ^= k1;
    }
    h1 ^= data.length;
    h2 ^= data.length;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    h2 += h1;
    return new long[] {h1, h2};
  }

  private static long littleEndianLong(byte[] b, int at) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[at + i] & 0xFFL);
    }
    return v;
  }

  private static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }
}
