package io.idemworker.spring.boot;

import java.util.List;

/** The {@code idemworker.*} properties cannot make a worker: each problem names the property. */
public class IdemworkerConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** The problems, each naming a property and the values it allows. */
  private final List<String> problems;

  /**
   * The problems found.
   *
   * @param problems each naming a property and what it allows
   */
  public IdemworkerConfigurationException(List<String> problems) {
    super("idemworker is misconfigured: " + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /**
   * Every problem found.
   *
   * @return the problems
   */
  public List<String> problems() {
    return problems;
  }
}
