package io.idemworker.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class ClassFilesTest {
  static final class Launchable {
    public static void main(String[] args) {}
  }

  static final class InstanceLaunchable {
    void main() {}
  }

  static final class NotLaunchable {
    static void main(int times) {}

    private void main() {}

    long wide = 1L; // a long constant takes two constant-pool entries

    double alsoWide() {
      return 2.5;
    }
  }

  @Test
  void aStaticMainTakingStrings_isFound() throws IOException {
    assertThat(ClassFiles.declaresMain(bytes(Launchable.class))).isTrue();
  }

  @Test
  void anInstanceMain_isFound() throws IOException {
    assertThat(ClassFiles.declaresMain(bytes(InstanceLaunchable.class))).isTrue();
  }

  @Test
  void otherMethodsNamedMain_areNot() throws IOException {
    assertThat(ClassFiles.declaresMain(bytes(NotLaunchable.class))).isFalse();
    assertThat(ClassFiles.declaresMain(bytes(ClassFiles.class))).isFalse();
  }

  private static byte[] bytes(Class<?> type) throws IOException {
    String name = type.getName().replace('.', '/') + ".class";
    try (InputStream in = type.getClassLoader().getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }
}
