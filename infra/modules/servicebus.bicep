// Service Bus namespace (Standard by default, Premium for high volume; Basic lacks duplicate detection)
// with Entra-only auth, and the orders queue. The worker identity may receive and send on the queue (send is for the demo and dead-letter
// resubmission); the scaler identity gets Data Owner on the queue and the topic because KEDA reads
// message counts through the management API, which needs the Manage claim. Each topic consumer's
// identity receives from its own subscription only.
param location string
param tags object
param namespaceName string
param queueName string
param workerPrincipalId string
param scalerPrincipalId string

@description('Principal id of the loyalty consumer app\'s identity; gets Data Receiver on the loyalty subscription only.')
param loyaltyPrincipalId string

@description('Principal id of the customer-stats consumer app\'s identity; gets Data Receiver on the customer-stats subscription only.')
param customerStatsPrincipalId string

@description('Object id of the deploying user; gets send and receive on the queue so the worker and the demo can run from a laptop against Azure. Empty to skip.')
param userPrincipalId string = ''

@allowed([
  'User'
  'ServicePrincipal'
])
param userPrincipalType string = 'User'

@allowed([
  'Standard'
  'Premium'
])
@description('Standard: shared capacity, pay per operation. Premium: dedicated messaging units, for high volume.')
param sku string = 'Standard'

@allowed([
  1
  2
  4
  8
  16
])
@description('Premium only: messaging units; must be a multiple of premiumPartitions. Ignored on Standard.')
param messagingUnits int = 1

@allowed([
  1
  2
  4
])
@description('Premium only: partitions of the namespace, fixed at creation; above 1 every entity is partitioned. Ignored on Standard.')
param premiumPartitions int = 1

// The three queue settings below are defined here only: the queue uses them and the outputs pass the same
// values to the worker (SERVICEBUS_LOCK_DURATION, SERVICEBUS_MAX_DELIVERY_COUNT, SERVICEBUS_MESSAGE_TTL),
// which needs them to know how long a copy of a message can still arrive.
@description('Peek-lock duration; the worker renews the lock while it works (WORKER_MAX_LOCK_RENEWAL).')
param lockDuration string = 'PT1M'

@minValue(1)
@description('Deliveries before Service Bus dead-letters a message.')
param maxDeliveryCount int = 10

@description('Session mode: the queue and the consumers\' subscriptions require sessions (SessionId = orderId), so one order\'s messages and events are handled in order, and the worker and the consumers run with SERVICEBUS_SESSIONS=true. Fixed when the queue and subscriptions are created.')
param requiresSession bool = false

@description('How long Service Bus remembers a MessageId to drop a re-sent duplicate (20 s to 7 days).')
param duplicateDetectionHistoryTimeWindow string = 'PT10M'

@description('Time-to-live of a message nobody receives; it is then dead-lettered, not dropped. 6 days outlasts a long weekend of worker outage, and keeps the redelivery horizon (lock duration x max delivery count + this + the 7-day resubmit window = 13 days 10 minutes) inside the 14 days the worker keeps inbox markers: the worker refuses to start when the markers would expire first.')
param defaultMessageTimeToLive string = 'P6D'

// The outbox relay's topic. The relay publishes with MessageId = the outbox entry's id, so duplicate
// detection drops the copy a relay crash between send and mark-as-published re-sends within the window.
@description('Topic the outbox relay publishes order events to.')
param topicName string = 'order-events'

@description('How long the topic remembers a MessageId to drop a re-published outbox entry (20 s to 7 days); fixed with duplicate detection when the topic is created.')
param topicDuplicateDetectionHistoryTimeWindow string = 'PT10M'

@description('Time-to-live of an event on the topic and its subscriptions; expired events are dead-lettered.')
param topicMessageTimeToLive string = 'P6D'

@description('Peek-lock duration of the topic\'s subscriptions.')
param subscriptionLockDuration string = 'PT1M'

@minValue(1)
@description('Deliveries before a subscription dead-letters an event.')
param subscriptionMaxDeliveryCount int = 10

@description('Subject (label) of the events the loyalty and customer-stats subscriptions receive.')
param orderAcceptedSubject string = 'OrderAccepted'

var isPremium = sku == 'Premium'
// A partitioned Premium namespace refuses non-partitioned entities; Standard keeps the queue unpartitioned.
var partitioned = isPremium && premiumPartitions > 1
var capacityFitsPartitions = messagingUnits % premiumPartitions == 0

var dataReceiverRoleId = '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'
var dataSenderRoleId = '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'
var dataOwnerRoleId = '090c5cfd-751d-490a-894a-3ce6f1109419'

resource sbNamespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: namespaceName
  location: location
  tags: tags
  sku: {
    name: sku
    tier: sku
    // Messaging units and partitions are Premium settings: no capacity and 0 partitions on Standard.
    // ARM takes only capacities that are a multiple of the partition count: stop at once with the
    // parameters' names rather than a provider error halfway through the deployment.
    capacity: isPremium ? (capacityFitsPartitions ? messagingUnits : fail('serviceBusMessagingUnits (${messagingUnits}) must be a multiple of serviceBusPremiumPartitions (${premiumPartitions}): 1, 2, 4, 8 or 16 units over 1, 2 or 4 partitions')) : null
  }
  // premiumMessagingPartitions is a Premium setting: sent only there, never as 0 on Standard.
  properties: union({
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: 'Enabled'
  }, isPremium ? {
    premiumMessagingPartitions: premiumPartitions
  } : {})
}

resource queue 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = {
  parent: sbNamespace
  name: queueName
  // Identical on Standard and Premium except enablePartitioning, which a partitioned namespace imposes.
  properties: {
    // Can only be set when the queue is created.
    requiresDuplicateDetection: true
    duplicateDetectionHistoryTimeWindow: duplicateDetectionHistoryTimeWindow
    lockDuration: lockDuration
    maxDeliveryCount: maxDeliveryCount
    deadLetteringOnMessageExpiration: true
    defaultMessageTimeToLive: defaultMessageTimeToLive
    // Can only be set when the queue is created; the worker's SERVICEBUS_SESSIONS follows it.
    requiresSession: requiresSession
    // With duplicate detection on and no partition key, a partitioned queue routes by MessageId, so
    // every copy of a message meets the same partition's duplicate history.
    enablePartitioning: partitioned
    maxSizeInMegabytes: 1024
  }
}

resource topic 'Microsoft.ServiceBus/namespaces/topics@2024-01-01' = {
  parent: sbNamespace
  name: topicName
  properties: {
    // Can only be set when the topic is created.
    requiresDuplicateDetection: true
    duplicateDetectionHistoryTimeWindow: topicDuplicateDetectionHistoryTimeWindow
    defaultMessageTimeToLive: topicMessageTimeToLive
    // As for the queue: a partitioned Premium namespace imposes it, Standard keeps it unpartitioned.
    enablePartitioning: partitioned
    maxSizeInMegabytes: 1024
    supportOrdering: false
  }
}

var subscriptionProperties = {
  lockDuration: subscriptionLockDuration
  maxDeliveryCount: subscriptionMaxDeliveryCount
  defaultMessageTimeToLive: topicMessageTimeToLive
  deadLetteringOnMessageExpiration: true
  deadLetteringOnFilterEvaluationExceptions: true
  // Session mode covers the consumers too: the relay sets SessionId = orderId on every event, and
  // each consumer app runs with SERVICEBUS_SESSIONS from the output subscriptionRequiresSession.
  // Can only be set when the subscription is created.
  requiresSession: requiresSession
}

resource loyalty 'Microsoft.ServiceBus/namespaces/topics/subscriptions@2024-01-01' = {
  parent: topic
  name: 'loyalty'
  properties: subscriptionProperties
}

resource customerStats 'Microsoft.ServiceBus/namespaces/topics/subscriptions@2024-01-01' = {
  parent: topic
  name: 'customer-stats'
  properties: subscriptionProperties
}

// Each subscription starts with a rule '$Default' that lets every message through; a rule of that
// name with a correlation filter replaces it, so only OrderAccepted events arrive.
resource loyaltyOrderAccepted 'Microsoft.ServiceBus/namespaces/topics/subscriptions/rules@2024-01-01' = {
  parent: loyalty
  name: '$Default'
  properties: {
    filterType: 'CorrelationFilter'
    correlationFilter: {
      label: orderAcceptedSubject
    }
  }
}

resource customerStatsOrderAccepted 'Microsoft.ServiceBus/namespaces/topics/subscriptions/rules@2024-01-01' = {
  parent: customerStats
  name: '$Default'
  properties: {
    filterType: 'CorrelationFilter'
    correlationFilter: {
      label: orderAcceptedSubject
    }
  }
}

// The outbox relay (its own app, relay-app.bicep) runs with the worker identity, so that identity
// sends to the topic; the role is scoped to the topic, not the namespace.
resource workerTopicSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(topic.id, workerPrincipalId, dataSenderRoleId)
  scope: topic
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSenderRoleId)
    principalId: workerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource workerReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(queue.id, workerPrincipalId, dataReceiverRoleId)
  scope: queue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiverRoleId)
    principalId: workerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource workerSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(queue.id, workerPrincipalId, dataSenderRoleId)
  scope: queue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSenderRoleId)
    principalId: workerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource scalerOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(queue.id, scalerPrincipalId, dataOwnerRoleId)
  scope: queue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataOwnerRoleId)
    principalId: scalerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Each consumer app receives from its own subscription and nothing else: the role is scoped to the
// subscription, not the topic (which would let it read the other consumer's copy) or the namespace.
resource loyaltyReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(loyalty.id, loyaltyPrincipalId, dataReceiverRoleId)
  scope: loyalty
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiverRoleId)
    principalId: loyaltyPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource customerStatsReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(customerStats.id, customerStatsPrincipalId, dataReceiverRoleId)
  scope: customerStats
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiverRoleId)
    principalId: customerStatsPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// KEDA reads each subscription's message count through the management API (Manage claim), as it
// does for the queue; Data Owner on the topic covers both subscriptions and nothing else.
resource scalerTopicOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(topic.id, scalerPrincipalId, dataOwnerRoleId)
  scope: topic
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataOwnerRoleId)
    principalId: scalerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource userReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(queue.id, userPrincipalId, dataReceiverRoleId)
  scope: queue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiverRoleId)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}

resource userSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(queue.id, userPrincipalId, dataSenderRoleId)
  scope: queue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSenderRoleId)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}

// The documented operator commands on the topic's subscriptions from a laptop (dlq --subscription,
// resubmit and explain --subscription) receive from a subscription's dead-letter queue and send back
// to the topic: Receiver and Sender scoped to the topic, which covers its subscriptions.
resource userTopicReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(topic.id, userPrincipalId, dataReceiverRoleId)
  scope: topic
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiverRoleId)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}

resource userTopicSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(topic.id, userPrincipalId, dataSenderRoleId)
  scope: topic
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSenderRoleId)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}

output namespaceName string = sbNamespace.name
// serviceBusEndpoint is https, two slashes, the host, ':443/'; the SDK wants the host alone. Split on
// single slashes: tree-sitter-bicep 1.1.0 lexes a string literal that starts with two slashes as a comment.
output fullyQualifiedNamespace string = split(split(sbNamespace.properties.serviceBusEndpoint, '/')[2], ':')[0]
output queueName string = queue.name
output lockDuration string = lockDuration
output maxDeliveryCount int = maxDeliveryCount
output defaultMessageTimeToLive string = defaultMessageTimeToLive
output requiresSession bool = requiresSession

output topicName string = topic.name
output loyaltySubscriptionName string = loyalty.name
output customerStatsSubscriptionName string = customerStats.name
// The subscriptions' settings, passed to the consumer apps as their SERVICEBUS_* variables.
output subscriptionLockDuration string = subscriptionLockDuration
output subscriptionMaxDeliveryCount int = subscriptionMaxDeliveryCount
// Whether the consumers' subscriptions require sessions, passed to the consumer apps as
// SERVICEBUS_SESSIONS: the value the subscriptions were created with, not a copy of it.
output subscriptionRequiresSession bool = subscriptionProperties.requiresSession
output subscriptionMessageTimeToLive string = topicMessageTimeToLive
