package io.idemworker.emulator.servicebus;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The message-ids an entity has seen inside its duplicate detection window, for a queue or a topic.
 * Not thread-safe: the owning entity guards it with its own monitor.
 */
final class DuplicateWindow {
  private Duration window;
  private final LinkedHashMap<String, Instant> seen = new LinkedHashMap<>();

  DuplicateWindow(Duration window) {
    this.window = window;
  }

  /** Changes the window; ids seen stay and are judged by the new one. */
  void window(Duration value) {
    this.window = value;
  }

  /**
   * Records a message-id and answers whether it was already seen inside the window ending at {@code
   * now}. Ids older than the window are forgotten on the way, oldest first, so the cost is
   * proportional to the ids that fall out.
   */
  boolean isDuplicate(String id, Instant now) {
    Instant cutoff = now.minus(window);
    Iterator<Map.Entry<String, Instant>> it = seen.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Instant> e = it.next();
      if (e.getValue().isAfter(cutoff)) {
        break;
      }
      it.remove();
    }
    Instant at = seen.get(id);
    if (at != null && at.isAfter(cutoff)) {
      return true;
    }
    seen.remove(id);
    seen.put(id, now);
    return false;
  }
}
