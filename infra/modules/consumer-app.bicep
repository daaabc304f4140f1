// One consumer of the order-events topic (WORKER_ROLE loyalty or customer-stats) as its own Container
// App: the worker's image and `run` command, reading its own subscription with its own identity, so
// each consumer scales on its own subscription's backlog. No ingress, no payments, no outbox relay
// (only the relay app relays). main.bicep deploys this module once per role.
param location string
param tags object
param name string
param containerAppsEnvironmentId string

@allowed([
  'loyalty'
  'customer-stats'
])
@description('The consumer role, as WORKER_ROLE; also the name of the subscription it reads.')
param role string

@description('The worker\'s image (the jar has every role); empty on the first provision.')
param imageName string = ''

param registryLoginServer string

@description('This consumer\'s own identity: Data Receiver on its subscription, Cosmos data, AcrPull, telemetry.')
param consumerIdentityId string
param consumerIdentityClientId string
param scalerIdentityId string
param serviceBusNamespaceName string
param serviceBusFullyQualifiedNamespace string
param topicName string

@description('The subscription this consumer reads, as SERVICEBUS_SUBSCRIPTION_NAME and the KEDA rule\'s subscriptionName.')
param subscriptionName string

// The subscription's own settings, from the Service Bus module's outputs (defined there once).
@description('Peek-lock duration of the subscription (ISO 8601), as SERVICEBUS_LOCK_DURATION.')
param subscriptionLockDuration string

@description('Deliveries before the subscription dead-letters an event, as SERVICEBUS_MAX_DELIVERY_COUNT.')
param subscriptionMaxDeliveryCount int

@description('Default time-to-live of the subscription\'s events (ISO 8601), as SERVICEBUS_MESSAGE_TTL.')
param subscriptionMessageTimeToLive string

@description('Whether the subscription requires sessions, as SERVICEBUS_SESSIONS: from the Service Bus module\'s output, so the consumer runs in session mode exactly when its subscription was created with requiresSession.')
param subscriptionRequiresSession bool

param cosmosEndpoint string
param cosmosDatabaseName string

@description('The consumers\' shared container, as COSMOS_CONTAINER.')
param cosmosContainerName string

param applicationInsightsName string

@minValue(0)
param minReplicas int = 0

@minValue(1)
@maxValue(1000)
param maxReplicas int = 10

@minValue(1)
@description('Active events in the subscription per replica before KEDA adds one; in session mode maxConcurrentSessions is the target instead.')
param messagesPerReplica int = 20

param cpu string = '0.5'
param memory string = '1Gi'

@description('Port of GET /health/live and GET /health/ready.')
param healthPort int = 8080

@allowed([
  'gateway'
  'direct'
])
param cosmosConnectionMode string = 'gateway'

param maxConcurrentCalls int = 16

@minValue(1)
@maxValue(1000)
@description('Session mode: orders (sessions) one replica holds at once, each one event at a time, as WORKER_MAX_CONCURRENT_SESSIONS.')
param maxConcurrentSessions int = 8

param prefetchCount int = 0
param maxLockRenewal string = 'PT5M'

@allowed([
  'message-id'
  'cloudevents'
])
param keyStrategy string = 'message-id'

param maxBodyBytes int = 262144
param shutdownTimeout string = 'PT30S'
param terminationGracePeriodSeconds int = 60

// As in worker-app.bicep: the placeholder has no health endpoints, so no probes while it runs.
var placeholderImage = 'mcr.microsoft.com/k8se/quickstart:latest'
var usePlaceholder = empty(imageName) || imageName == placeholderImage
var image = usePlaceholder ? placeholderImage : imageName

// KEDA's target of active events per replica. In session mode a replica takes at most
// maxConcurrentSessions orders at once, one event at a time each, and an order has about one event
// in the subscription (its OrderAccepted): a replica is busy with maxConcurrentSessions of them, so
// that is the backlog per replica. A larger target (messagesPerReplica, 20 by default) would leave
// the backlog queued behind 8 sessions; a smaller one would add replicas with session slots unused.
var activeMessagesPerReplica = subscriptionRequiresSession ? maxConcurrentSessions : messagesPerReplica

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

var probes = [
  {
    type: 'Startup'
    httpGet: {
      path: '/health/live'
      port: healthPort
    }
    initialDelaySeconds: 5
    periodSeconds: 10
    timeoutSeconds: 3
    failureThreshold: 10
  }
  {
    type: 'Liveness'
    httpGet: {
      path: '/health/live'
      port: healthPort
    }
    periodSeconds: 10
    timeoutSeconds: 3
    failureThreshold: 3
  }
  {
    type: 'Readiness'
    httpGet: {
      path: '/health/ready'
      port: healthPort
    }
    periodSeconds: 10
    timeoutSeconds: 3
    failureThreshold: 3
  }
]

resource app 'Microsoft.App/containerApps@2025-01-01' = {
  name: name
  location: location
  // No azd-service-name tag: azd deploys the 'worker' service to the order worker only; this app
  // takes the image azd passes back on the next provision (docs/deploy.md).
  tags: union(tags, {
    'idemworker-role': role
  })
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${consumerIdentityId}': {}
      '${scalerIdentityId}': {}
    }
  }
  properties: {
    environmentId: containerAppsEnvironmentId
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      // The scaler's identity holds Service Bus Data Owner for KEDA's message counts: 'None' keeps it
      // for the platform (the scale rule) and out of the container, so the code cannot get a token
      // for it. The app's own identity keeps the default ('All').
      identitySettings: [
        {
          identity: scalerIdentityId
          lifecycle: 'None'
        }
      ]
      registries: [
        {
          server: registryLoginServer
          identity: consumerIdentityId
        }
      ]
      secrets: [
        {
          name: 'applicationinsights-connection-string'
          value: applicationInsights.properties.ConnectionString
        }
      ]
    }
    template: {
      terminationGracePeriodSeconds: terminationGracePeriodSeconds
      containers: [
        {
          name: 'worker'
          image: image
          resources: {
            cpu: json(cpu)
            memory: memory
          }
          env: [
            {
              name: 'WORKER_ROLE'
              value: role
            }
            {
              name: 'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE'
              value: serviceBusFullyQualifiedNamespace
            }
            {
              name: 'SERVICEBUS_TOPIC_NAME'
              value: topicName
            }
            {
              name: 'SERVICEBUS_SUBSCRIPTION_NAME'
              value: subscriptionName
            }
            {
              name: 'SERVICEBUS_LOCK_DURATION'
              value: subscriptionLockDuration
            }
            {
              name: 'SERVICEBUS_MAX_DELIVERY_COUNT'
              value: string(subscriptionMaxDeliveryCount)
            }
            {
              name: 'SERVICEBUS_MESSAGE_TTL'
              value: subscriptionMessageTimeToLive
            }
            {
              name: 'COSMOS_ENDPOINT'
              value: cosmosEndpoint
            }
            {
              name: 'COSMOS_DATABASE'
              value: cosmosDatabaseName
            }
            {
              name: 'COSMOS_CONTAINER'
              value: cosmosContainerName
            }
            {
              name: 'COSMOS_CONNECTION_MODE'
              value: cosmosConnectionMode
            }
            {
              // Only the relay app (relay-app.bicep) runs the outbox relay.
              name: 'RELAY_ENABLED'
              value: 'false'
            }
            {
              name: 'WORKER_MAX_CONCURRENT_CALLS'
              value: string(maxConcurrentCalls)
            }
            {
              name: 'SERVICEBUS_SESSIONS'
              value: string(subscriptionRequiresSession)
            }
            {
              name: 'WORKER_MAX_CONCURRENT_SESSIONS'
              value: string(maxConcurrentSessions)
            }
            {
              name: 'WORKER_PREFETCH_COUNT'
              value: string(prefetchCount)
            }
            {
              name: 'WORKER_MAX_LOCK_RENEWAL'
              value: maxLockRenewal
            }
            {
              name: 'WORKER_KEY_STRATEGY'
              value: keyStrategy
            }
            {
              name: 'WORKER_MAX_BODY_BYTES'
              value: string(maxBodyBytes)
            }
            {
              name: 'WORKER_SHUTDOWN_TIMEOUT'
              value: shutdownTimeout
            }
            {
              name: 'HEALTH_PORT'
              value: string(healthPort)
            }
            {
              // DefaultAzureCredential picks this consumer's identity, not the scaler's.
              name: 'AZURE_CLIENT_ID'
              value: consumerIdentityClientId
            }
            {
              name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
              secretRef: 'applicationinsights-connection-string'
            }
            {
              name: 'OTEL_SERVICE_NAME'
              value: 'idemworker-${role}'
            }
          ]
          probes: usePlaceholder ? [] : probes
        }
      ]
      scale: {
        minReplicas: minReplicas
        maxReplicas: maxReplicas
        rules: [
          {
            name: 'servicebus-subscription'
            custom: {
              type: 'azure-servicebus'
              metadata: {
                topicName: topicName
                subscriptionName: subscriptionName
                namespace: serviceBusNamespaceName
                messageCount: string(activeMessagesPerReplica)
              }
              identity: scalerIdentityId
            }
          }
        ]
      }
    }
  }
}

output name string = app.name
