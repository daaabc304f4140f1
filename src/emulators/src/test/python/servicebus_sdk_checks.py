#!/usr/bin/python3
"""Microsoft's Python Service Bus SDK (azure-servicebus 7.8 on uamqp, Debian's python3-azure)
against the emulator's TLS port, as shipped: only the connection string and the CA file are given.

Environment:
  SB_CONNECTION_STRING  the emulator's TLS connection string (Endpoint=sb://HOST:5671;...);
                        the SDK dials port 5671 of HOST whatever the endpoint says
  SB_CA_FILE            PEM file of the certificate to trust (the SDK's connection_verify)
Arguments: the names of the checks to run (default: all). Each check uses its own entities,
which the emulator must have (see ENTITIES). Prints "PASS name" or "FAIL name: why" per check
and exits 0 only when every check passed.
"""

import datetime
import os
import sys
import time
import traceback

from azure.servicebus import (
    NEXT_AVAILABLE_SESSION,
    ServiceBusClient,
    ServiceBusMessage,
    ServiceBusReceiveMode,
    ServiceBusSubQueue,
)
from azure.servicebus.amqp import AmqpAnnotatedMessage, AmqpMessageBodyType
from azure.servicebus.exceptions import ServiceBusError

# What each check needs: queues (plain), session queues, topic -> subscriptions.
ENTITIES = {
    "queues": ["py-basic", "py-abandon", "py-deadletter", "py-defer", "py-peek",
               "py-schedule", "py-bodies", "py-lock", "py-link-lock (LockDuration 10 s)"],
    "session_queues": ["py-sessions"],
    "topics": {"py-topic": ["py-sub"],
               "py-rules": ["eu (SQL rule region = 'eu')", "accepted (correlation: subject OrderAccepted)"],
               "py-session-topic": ["orders (requires session)"]},
}

WAIT = 30  # seconds a receive may wait for a message that must come


def client():
    return ServiceBusClient.from_connection_string(
        os.environ["SB_CONNECTION_STRING"],
        connection_verify=os.environ["SB_CA_FILE"],
        retry_total=2,
    )


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def receive_exactly(receiver, count):
    """Receives until count messages came; fails after WAIT seconds."""
    got = []
    deadline = time.monotonic() + WAIT
    while len(got) < count and time.monotonic() < deadline:
        got += receiver.receive_messages(max_message_count=count - len(got), max_wait_time=5)
    expect(len(got) == count, f"expected {count} messages, got {len(got)}")
    return got


def expect_empty(receiver):
    rest = receiver.receive_messages(max_message_count=10, max_wait_time=2)
    expect(not rest, f"expected no message, got {[m.message_id for m in rest]}")


def check_send_receive_complete(sb):
    sent = [
        ServiceBusMessage(
            f"order {i}",
            message_id=f"basic-{i}",
            subject="OrderPlaced",
            content_type="application/json",
            correlation_id="corr-1",
            application_properties={"region": "eu", "attempt": i},
        )
        for i in range(3)
    ]
    with sb.get_queue_sender("py-basic") as sender:
        sender.send_messages(sent[0])
        batch = sender.create_message_batch()
        batch.add_message(sent[1])
        batch.add_message(sent[2])
        sender.send_messages(batch)
    with sb.get_queue_receiver("py-basic") as receiver:
        got = receive_exactly(receiver, 3)
        expect([m.message_id for m in got] == ["basic-0", "basic-1", "basic-2"],
               f"order {[m.message_id for m in got]}")
        first = got[0]
        expect(str(first) == "order 0", f"body {str(first)!r}")
        expect(first.subject == "OrderPlaced", f"subject {first.subject}")
        expect(first.content_type == "application/json", f"content type {first.content_type}")
        expect(first.correlation_id == "corr-1", f"correlation id {first.correlation_id}")
        props = {k.decode() if isinstance(k, bytes) else k:
                 v.decode() if isinstance(v, bytes) else v
                 for k, v in first.application_properties.items()}
        expect(props == {"region": "eu", "attempt": 0}, f"application properties {props}")
        expect(first.delivery_count == 0, f"delivery count {first.delivery_count}")
        expect(first.sequence_number > 0, f"sequence number {first.sequence_number}")
        expect(first.enqueued_time_utc is not None, "no enqueued time")
        expect(first.locked_until_utc is not None and first.lock_token is not None, "no lock")
        for m in got:
            receiver.complete_message(m)
        expect_empty(receiver)
    with sb.get_queue_sender("py-basic") as sender:
        sender.send_messages(ServiceBusMessage("gone", message_id="basic-rd"))
    with sb.get_queue_receiver(
            "py-basic", receive_mode=ServiceBusReceiveMode.RECEIVE_AND_DELETE) as receiver:
        got = receive_exactly(receiver, 1)
        expect(got[0].message_id == "basic-rd", "receive-and-delete message")
        expect_empty(receiver)


def check_abandon(sb):
    with sb.get_queue_sender("py-abandon") as sender:
        sender.send_messages(ServiceBusMessage("again", message_id="abandon-1"))
    with sb.get_queue_receiver("py-abandon") as receiver:
        first = receive_exactly(receiver, 1)[0]
        receiver.abandon_message(first)
        second = receive_exactly(receiver, 1)[0]
        expect(second.message_id == "abandon-1", f"redelivered {second.message_id}")
        expect(second.delivery_count == 1, f"delivery count {second.delivery_count}")
        receiver.complete_message(second)
        expect_empty(receiver)


def check_dead_letter(sb):
    with sb.get_queue_sender("py-deadletter") as sender:
        sender.send_messages(ServiceBusMessage("bad", message_id="dl-1"))
    with sb.get_queue_receiver("py-deadletter") as receiver:
        m = receive_exactly(receiver, 1)[0]
        receiver.dead_letter_message(
            m, reason="InvalidBody", error_description="field 'orderId' is missing")
        expect_empty(receiver)
    with sb.get_queue_receiver(
            "py-deadletter", sub_queue=ServiceBusSubQueue.DEAD_LETTER) as dlq:
        dead = receive_exactly(dlq, 1)[0]
        expect(dead.message_id == "dl-1", f"dead-lettered {dead.message_id}")
        expect(dead.dead_letter_reason == "InvalidBody", f"reason {dead.dead_letter_reason}")
        expect(dead.dead_letter_error_description == "field 'orderId' is missing",
               f"description {dead.dead_letter_error_description}")
        # The service sets DeadLetterSource only on messages auto-forwarded out of a DLQ.
        expect(dead.dead_letter_source is None, f"dead-letter source {dead.dead_letter_source}")
        dlq.complete_message(dead)
        expect_empty(dlq)
    with sb.get_queue_receiver(
            "py-deadletter", sub_queue=ServiceBusSubQueue.TRANSFER_DEAD_LETTER) as transfer:
        expect_empty(transfer)


def check_defer(sb):
    with sb.get_queue_sender("py-defer") as sender:
        sender.send_messages(ServiceBusMessage("later", message_id="defer-1"))
    with sb.get_queue_receiver("py-defer") as receiver:
        m = receive_exactly(receiver, 1)[0]
        sequence = m.sequence_number
        receiver.defer_message(m)
        expect_empty(receiver)
        deferred = receiver.receive_deferred_messages([sequence])
        expect([d.message_id for d in deferred] == ["defer-1"], f"deferred {deferred}")
        receiver.complete_message(deferred[0])
        expect(receiver.peek_messages(max_message_count=10) == [], "deferred message left")


def check_peek(sb):
    with sb.get_queue_sender("py-peek") as sender:
        sender.send_messages([ServiceBusMessage(f"p{i}", message_id=f"peek-{i}") for i in range(3)])
    with sb.get_queue_receiver("py-peek") as receiver:
        peeked = receiver.peek_messages(max_message_count=10)
        expect([p.message_id for p in peeked] == ["peek-0", "peek-1", "peek-2"],
               f"peeked {[p.message_id for p in peeked]}")
        later = receiver.peek_messages(max_message_count=10,
                                       sequence_number=peeked[1].sequence_number)
        expect([p.message_id for p in later] == ["peek-1", "peek-2"],
               f"peeked from a sequence number {[p.message_id for p in later]}")
        got = receive_exactly(receiver, 3)
        for m in got:
            receiver.complete_message(m)
        expect(receiver.peek_messages(max_message_count=10) == [], "messages left after peek")


def check_schedule_cancel(sb):
    now = datetime.datetime.now(datetime.timezone.utc)
    with sb.get_queue_sender("py-schedule") as sender:
        far = sender.schedule_messages(
            ServiceBusMessage("never", message_id="sched-far"), now + datetime.timedelta(hours=1))
        soon = sender.schedule_messages(
            ServiceBusMessage("soon", message_id="sched-soon"), now + datetime.timedelta(seconds=2))
        expect(len(far) == 1 and len(soon) == 1, f"sequence numbers {far} {soon}")
        sender.cancel_scheduled_messages(far)
    with sb.get_queue_receiver("py-schedule") as receiver:
        got = receive_exactly(receiver, 1)[0]
        expect(got.message_id == "sched-soon", f"scheduled {got.message_id}")
        expect(got.scheduled_enqueue_time_utc is not None, "no scheduled enqueue time")
        receiver.complete_message(got)
        expect(receiver.peek_messages(max_message_count=10) == [], "cancelled message left")
    with sb.get_topic_sender("py-topic") as sender:
        seq = sender.schedule_messages(
            ServiceBusMessage("topic", message_id="sched-topic"),
            now + datetime.timedelta(hours=1))
        with sb.get_subscription_receiver("py-topic", "py-sub") as receiver:
            peeked = receiver.peek_messages(max_message_count=10)
            expect([p.message_id for p in peeked] == ["sched-topic"], f"topic scheduled {peeked}")
            sender.cancel_scheduled_messages(seq)
            expect(receiver.peek_messages(max_message_count=10) == [], "topic cancel left a copy")
            sender.send_messages(ServiceBusMessage("now", message_id="topic-1"))
            got = receive_exactly(receiver, 1)[0]
            expect(got.message_id == "topic-1", f"subscription got {got.message_id}")
            receiver.complete_message(got)


def check_lock_renewal(sb):
    with sb.get_queue_sender("py-lock") as sender:
        sender.send_messages(ServiceBusMessage("hold", message_id="lock-1"))
    with sb.get_queue_receiver("py-lock") as receiver:
        m = receive_exactly(receiver, 1)[0]
        before = m.locked_until_utc
        time.sleep(1.1)  # the lock's end is in whole milliseconds; renewal must move it
        after = receiver.renew_message_lock(m)
        expect(after > before, f"renewed lock {after} not after {before}")
        receiver.complete_message(m)


def check_lock_outlives_link(sb):
    """A receiver that closes without settling leaves the lock in place until LockDuration ends,
    as the service does; then the message comes back with its delivery count raised."""
    with sb.get_queue_sender("py-link-lock") as sender:
        sender.send_messages(ServiceBusMessage("held", message_id="link-lock-1"))
    with sb.get_queue_receiver("py-link-lock") as first:
        held = receive_exactly(first, 1)[0]
    locked_until = held.locked_until_utc
    with sb.get_queue_receiver("py-link-lock") as second:
        early = second.receive_messages(max_message_count=1, max_wait_time=2)
        still_locked = datetime.datetime.now(datetime.timezone.utc) < locked_until
        expect(not early or not still_locked,
               f"{[m.message_id for m in early]} came back while its lock still held")
        again = early or receive_exactly(second, 1)
        expect(again[0].message_id == "link-lock-1", f"came back {again[0].message_id}")
        expect(again[0].delivery_count == 1, f"delivery count {again[0].delivery_count}")
        expect(datetime.datetime.now(datetime.timezone.utc) >= locked_until,
               f"came back before the lock's end {locked_until}")
        second.complete_message(again[0])


def check_sessions(sb):
    with sb.get_queue_sender("py-sessions") as sender:
        for i in range(3):
            sender.send_messages(ServiceBusMessage(f"a{i}", message_id=f"a-{i}", session_id="a"))
        for i in range(2):
            sender.send_messages(ServiceBusMessage(f"b{i}", message_id=f"b-{i}", session_id="b"))
        try:
            sender.send_messages(ServiceBusMessage("no session", message_id="none"))
            raise AssertionError("a message without session id was accepted")
        except ServiceBusError:
            pass
    with sb.get_queue_receiver("py-sessions", session_id="a") as receiver:
        got = receive_exactly(receiver, 3)
        expect([m.message_id for m in got] == ["a-0", "a-1", "a-2"],
               f"session a order {[m.message_id for m in got]}")
        expect(all(m.session_id == "a" for m in got), "session ids")
        session = receiver.session
        expect(session.get_state() in (None, b""), f"initial state {session.get_state()}")
        session.set_state(b"step-3")
        expect(session.get_state() == b"step-3", "session state not kept")
        renewed = session.renew_lock()
        expect(renewed is not None, "session lock not renewed")
        receiver.abandon_message(got[2])
        again = receive_exactly(receiver, 1)[0]
        expect(again.message_id == "a-2" and again.delivery_count == 1, "abandoned in session")
        for m in got[:2] + [again]:
            receiver.complete_message(m)
    with sb.get_queue_receiver("py-sessions", session_id=NEXT_AVAILABLE_SESSION,
                               max_wait_time=10) as receiver:
        got = receive_exactly(receiver, 2)
        expect(receiver.session.session_id == "b", f"next session {receiver.session.session_id}")
        expect([m.message_id for m in got] == ["b-0", "b-1"], "session b order")
        for m in got:
            receiver.complete_message(m)
    with sb.get_queue_receiver("py-sessions", session_id="a") as receiver:
        expect(receiver.session.get_state() == b"step-3", "state did not outlive the receiver")


def check_multi_section_bodies(sb):
    data = AmqpAnnotatedMessage(data_body=[b"one", b"two", b"three"],
                                properties={"message_id": "data-3"})
    sequence = AmqpAnnotatedMessage(sequence_body=[[1, "a"], [2, "b"]],
                                    properties={"message_id": "seq-2"})
    with sb.get_queue_sender("py-bodies") as sender:
        sender.send_messages(data)
        sender.send_messages(sequence)
    with sb.get_queue_receiver("py-bodies") as receiver:
        got = receive_exactly(receiver, 2)
        by_id = {m.message_id: m for m in got}
        d = by_id["data-3"]
        expect(d.body_type == AmqpMessageBodyType.DATA, f"body type {d.body_type}")
        expect(list(d.body) == [b"one", b"two", b"three"], f"data sections {list(d.body)}")
        s = by_id["seq-2"]
        expect(s.body_type == AmqpMessageBodyType.SEQUENCE, f"body type {s.body_type}")
        sections = [[v.decode() if isinstance(v, bytes) else v for v in section]
                    for section in s.body]
        expect(sections == [[1, "a"], [2, "b"]], f"sequence sections {sections}")
        for m in got:
            receiver.complete_message(m)


def check_topic_subscriptions(sb):
    with sb.get_topic_sender("py-rules") as sender:
        sender.send_messages([
            ServiceBusMessage("eu", message_id="r-eu", subject="OrderPlaced",
                              application_properties={"region": "eu"}),
            ServiceBusMessage("us", message_id="r-us", subject="OrderAccepted",
                              application_properties={"region": "us"}),
        ])
    with sb.get_subscription_receiver("py-rules", "eu") as eu:
        got = receive_exactly(eu, 1)[0]
        expect(got.message_id == "r-eu", f"eu subscription got {got.message_id}")
        eu.dead_letter_message(got, reason="NotForUs", error_description="region")
        expect_empty(eu)
    with sb.get_subscription_receiver("py-rules", "accepted") as accepted:
        got = receive_exactly(accepted, 1)[0]
        expect(got.message_id == "r-us", f"accepted subscription got {got.message_id}")
        accepted.complete_message(got)
        expect_empty(accepted)
    with sb.get_subscription_receiver(
            "py-rules", "eu", sub_queue=ServiceBusSubQueue.DEAD_LETTER) as dlq:
        dead = receive_exactly(dlq, 1)[0]
        expect(dead.message_id == "r-eu" and dead.dead_letter_reason == "NotForUs",
               f"subscription DLQ {dead.message_id} {dead.dead_letter_reason}")
        dlq.complete_message(dead)
    with sb.get_topic_sender("py-session-topic") as sender:
        sender.send_messages([ServiceBusMessage(f"o{i}", message_id=f"o-{i}", session_id="ord-7")
                              for i in range(3)])
    with sb.get_subscription_receiver("py-session-topic", "orders",
                                      session_id=NEXT_AVAILABLE_SESSION,
                                      max_wait_time=10) as receiver:
        got = receive_exactly(receiver, 3)
        expect([m.message_id for m in got] == ["o-0", "o-1", "o-2"], "session subscription order")
        expect(receiver.session.session_id == "ord-7", "session subscription id")
        for m in got:
            receiver.complete_message(m)


CHECKS = {
    "send_receive_complete": check_send_receive_complete,
    "abandon": check_abandon,
    "dead_letter": check_dead_letter,
    "defer": check_defer,
    "peek": check_peek,
    "schedule_cancel": check_schedule_cancel,
    "lock_renewal": check_lock_renewal,
    "lock_outlives_link": check_lock_outlives_link,
    "sessions": check_sessions,
    "multi_section_bodies": check_multi_section_bodies,
    "topic_subscriptions": check_topic_subscriptions,
}


def main(names):
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        print(f"unknown checks {unknown}; known: {sorted(CHECKS)}")
        return 2
    failed = 0
    with client() as sb:
        for name in names or list(CHECKS):
            started = time.monotonic()
            try:
                CHECKS[name](sb)
                print(f"PASS {name} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception as e:  # report every check, whatever failed
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
                traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
