package io.idemworker.emulator.servicebus;

/**
 * A session operation on a session whose lock is not held: answered with {@code
 * com.microsoft:session-lock-lost}.
 */
final class SessionLockLostException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SessionLockLostException(String message) {
    super(message);
  }
}
