package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.Test;

/** The SQL filter subset, evaluated against AMQP messages as the topic sees them. */
class SqlFilterTest {
  private static Message message(String subject, Map<String, Object> props) {
    Message m = Message.Factory.create();
    Properties p = new Properties();
    p.setMessageId("ord-1");
    p.setSubject(subject);
    p.setCorrelationId("c-1");
    m.setProperties(p);
    m.setApplicationProperties(new ApplicationProperties(new HashMap<>(props)));
    return m;
  }

  private static boolean matches(String expression, Message m) {
    return new SqlFilter(expression).matches(m);
  }

  @Test
  void systemAndUserProperties_areComparedByName_ignoringCase() {
    Message m = message("OrderAccepted", Map.of("Region", "eu", "amount", 42));

    assertThat(matches("sys.Label = 'OrderAccepted' AND region = 'eu'", m)).isTrue();
    assertThat(matches("SYS.label = 'OrderAccepted' and USER.region = 'eu'", m)).isTrue();
    assertThat(matches("sys.Subject = 'OrderAccepted'", m)).isTrue();
    assertThat(matches("sys.Label = 'orderaccepted'", m)).as("values are case-sensitive").isFalse();
    assertThat(matches("sys.MessageId = 'ord-1' AND sys.CorrelationId <> 'c-2'", m)).isTrue();
  }

  @Test
  void numbers_compareByValueWhateverTheirAmqpType() {
    Message m =
        message(
            "s",
            Map.of("int", 42, "long", 42L, "double", 42.5, "uint", UnsignedInteger.valueOf(7)));

    assertThat(matches("int = 42.0 AND long >= 42 AND double > 42 AND uint < 8", m)).isTrue();
    assertThat(matches("int != 42", m)).isFalse();
    assertThat(matches("double <= -1", m)).isFalse();
    assertThat(matches("int = '42'", m)).as("a string never equals a number").isFalse();
    assertThat(matches("NOT (int = '42')", m)).as("unknown stays unknown under NOT").isFalse();
  }

  @Test
  void missingProperties_makeComparisonsUnknown_followingThreeValuedLogic() {
    Message m = message("s", Map.of("a", 1));

    assertThat(matches("missing = 1", m)).isFalse();
    assertThat(matches("NOT missing = 1", m)).isFalse();
    assertThat(matches("missing = 1 OR a = 1", m)).isTrue();
    assertThat(matches("missing = 1 AND a = 1", m)).isFalse();
    assertThat(matches("NOT (missing = 1 AND a = 2)", m)).as("unknown AND false is false").isTrue();
    assertThat(matches("missing IS NULL AND a IS NOT NULL", m)).isTrue();
    assertThat(matches("EXISTS(a) AND NOT EXISTS(missing)", m)).isTrue();
  }

  @Test
  void inLikeAndBooleans_behaveAsInServiceBus() {
    Message m =
        message(
            "OrderAccepted", Map.of("region", "eu-west", "vip", true, "tier", Symbol.valueOf("g")));

    assertThat(matches("region IN ('us', 'eu-west')", m)).isTrue();
    assertThat(matches("region NOT IN ('us', 'eu-west')", m)).isFalse();
    assertThat(matches("region LIKE 'eu-%' AND sys.Label LIKE 'Order_ccepted'", m)).isTrue();
    assertThat(matches("region NOT LIKE 'eu%'", m)).isFalse();
    assertThat(matches("region LIKE 'eu.%'", m)).as("regex characters are literal").isFalse();
    assertThat(matches("vip = TRUE AND tier = 'g'", m)).isTrue();
    assertThat(matches("1=1", m)).isTrue();
    assertThat(matches("[region] = 'eu-west' AND 'it''s' = 'it''s'", m)).isTrue();
  }

  @Test
  void unsupportedOrMalformedExpressions_failWhenTheFilterIsMade_givingThePosition() {
    assertThatThrownBy(() -> new SqlFilter("a = 1 +")).hasMessageContaining("arithmetic");
    assertThatThrownBy(() -> new SqlFilter("newid() = 1")).hasMessageContaining("functions");
    assertThatThrownBy(() -> new SqlFilter("sys.DeliveryCount > 1"))
        .hasMessageContaining("sys.DeliveryCount");
    assertThatThrownBy(() -> new SqlFilter("a LIKE 'x!%' ESCAPE '!'"))
        .hasMessageContaining("ESCAPE");
    assertThatThrownBy(() -> new SqlFilter("a = 'open")).hasMessageContaining("unterminated");
    assertThatThrownBy(() -> new SqlFilter("(a = 1")).hasMessageContaining("expected ')'");
    assertThatThrownBy(() -> new SqlFilter("a = 1 b")).hasMessageContaining("position 7");
    assertThatThrownBy(() -> new SqlFilter("other.a = 1")).hasMessageContaining("scope");
    assertThatThrownBy(() -> new SqlFilter(" ")).hasMessageContaining("blank");
  }

  @Test
  void filters_areEqualByExpression() {
    assertThat(new SqlFilter("a = 1"))
        .isEqualTo(new SqlFilter("a = 1"))
        .hasSameHashCodeAs(new SqlFilter("a = 1"));
    assertThat(new SqlFilter("a = 1")).isNotEqualTo(new SqlFilter("a = 2"));
  }
}
