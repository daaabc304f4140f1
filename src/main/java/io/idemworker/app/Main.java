package io.idemworker.app;

/** Entry point of the idemworker command line. */
public final class Main {
  private Main() {}

  /**
   * Runs the command line.
   *
   * @param args the command-line arguments
   */
  public static void main(String[] args) {
    System.out.println("idemworker");
  }
}
