package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Point reads and writes are charged as Microsoft's published table gives them for the default
 * indexing policy, and on the straight line between two published sizes.
 */
class RequestChargesTest {

  @ParameterizedTest(name = "{0} KB: read {1} RU, write {2} RU")
  @CsvSource({
    "1, 1.00, 4.95",
    "2, 1.04, 6.29",
    "4, 1.14, 6.67",
    "8, 1.33, 7.04",
    "16, 1.67, 9.52",
    "32, 2.19, 11.23",
    "64, 4.76, 22.67",
    "128, 9.95, 48.19",
    "256, 20.28, 98.29",
    "512, 40.95, 184.57",
    "1024, 145.90, 625.00",
    "2048, 291.80, 1250.00"
  })
  void publishedSizes_costThePublishedFigures(int kb, double read, double write) {
    assertThat(RequestCharges.read(kb * 1024)).isEqualTo(read);
    assertThat(RequestCharges.write(kb * 1024)).isEqualTo(write);
  }

  @ParameterizedTest(name = "{0} bytes")
  @CsvSource({"0", "1", "300", "1024"})
  void documentsUpTo1Kb_costThe1KbFigures(int bytes) {
    assertThat(RequestCharges.read(bytes)).isEqualTo(1.00);
    assertThat(RequestCharges.write(bytes)).isEqualTo(4.95);
  }

  @ParameterizedTest(name = "{0} bytes: read {1} RU, write {2} RU")
  @CsvSource({"1536, 1.02, 5.62", "3072, 1.09, 6.48", "12288, 1.50, 8.28"})
  void sizesBetweenPublishedOnes_costTheStraightLineBetweenThem(
      int bytes, double read, double write) {
    assertThat(RequestCharges.read(bytes)).isEqualTo(read);
    assertThat(RequestCharges.write(bytes)).isEqualTo(write);
  }

  @ParameterizedTest(name = "{0} bytes")
  @CsvSource({"1025", "1500", "2047", "2049", "70000"})
  void aLargerDocument_neverCostsLess(int bytes) {
    assertThat(RequestCharges.read(bytes)).isGreaterThanOrEqualTo(RequestCharges.read(bytes - 1));
    assertThat(RequestCharges.write(bytes)).isGreaterThanOrEqualTo(RequestCharges.write(bytes - 1));
  }
}
