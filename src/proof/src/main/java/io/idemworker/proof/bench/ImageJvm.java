package io.idemworker.proof.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM options the worker's image starts with, read from the Dockerfile, so a bench measures
 * what a replica runs rather than a copy of the options that could drift.
 */
final class ImageJvm {
  private static final Pattern ENTRYPOINT = Pattern.compile("(?m)^ENTRYPOINT \\[(.*)]\\s*$");
  private static final Pattern ITEM = Pattern.compile("\"([^\"]*)\"");

  private ImageJvm() {}

  /**
   * The options of the last stage's {@code ENTRYPOINT} (the worker's), between {@code java} and
   * {@code -jar}, without the image's own class-data archive or AOT cache (a bench trains its own:
   * either only fits the class path and the JVM it was made with), followed by {@code -XX:MaxRAM}
   * so the percentage-based heap options size the heap as in a container of that memory.
   *
   * @param dockerfile the Dockerfile's text
   * @param containerMemory a container's memory in the JVM's size syntax, e.g. {@code 2g}
   * @return the options, in order
   * @throws IllegalArgumentException when no {@code ENTRYPOINT ["java", ..., "-jar", ...]} is found
   */
  static List<String> options(String dockerfile, String containerMemory) {
    Matcher last = null;
    Matcher m = ENTRYPOINT.matcher(dockerfile);
    while (m.find()) {
      last = ENTRYPOINT.matcher(dockerfile);
      last.find(m.start());
    }
    if (last == null) {
      throw new IllegalArgumentException("no ENTRYPOINT [\"java\", ...] line");
    }
    List<String> items = new ArrayList<>();
    Matcher item = ITEM.matcher(last.group(1));
    while (item.find()) {
      items.add(item.group(1));
    }
    int jar = items.indexOf("-jar");
    if (items.isEmpty() || !items.get(0).equals("java") || jar < 0) {
      throw new IllegalArgumentException(
          "the last ENTRYPOINT is not [\"java\", options..., \"-jar\", jar]: " + items);
    }
    List<String> options = new ArrayList<>();
    for (String option : items.subList(1, jar)) {
      if (!option.startsWith("-XX:SharedArchiveFile=") && !option.startsWith("-XX:AOTCache=")) {
        options.add(option);
      }
    }
    options.add("-XX:MaxRAM=" + containerMemory);
    return options;
  }
}
