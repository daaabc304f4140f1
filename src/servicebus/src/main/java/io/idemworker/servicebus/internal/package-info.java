/**
 * What the Service Bus hosts share: the settlement of an outcome ({@link
 * io.idemworker.servicebus.internal.Settlement}), the worker's life cycle, delivery conversion and
 * the flow-and-rehandle loop, dead-letter copies. Public only so the library's packages can share
 * it; not an API, no compatibility promise, and an architecture rule keeps applications off it.
 */
package io.idemworker.servicebus.internal;
