// The worker Container App: no ingress (it only pulls from Service Bus), health probes on HEALTH_PORT,
// KEDA azure-servicebus scaling authenticated with the scaler identity, and every setting the worker
// reads (infra/worker-env.json) passed as an environment variable.
param location string
param tags object
param name string
param containerAppsEnvironmentId string

@description('Image to run; empty on the first provision, before azd has built and pushed one.')
param imageName string = ''

param registryLoginServer string
param workerIdentityId string
param workerIdentityClientId string
param scalerIdentityId string
param serviceBusNamespaceName string
param serviceBusFullyQualifiedNamespace string
param queueName string

// The queue's own settings, from the Service Bus module's outputs (defined there once).
@description('Peek-lock duration of the queue (ISO 8601), as SERVICEBUS_LOCK_DURATION.')
param queueLockDuration string

@description('Deliveries before the queue dead-letters a message, as SERVICEBUS_MAX_DELIVERY_COUNT.')
param queueMaxDeliveryCount int

@description('Default message time-to-live of the queue (ISO 8601), as SERVICEBUS_MESSAGE_TTL.')
param queueMessageTimeToLive string

@description('Whether the queue requires sessions; the worker runs in session mode exactly then.')
param queueRequiresSession bool

param cosmosEndpoint string
param cosmosDatabaseName string
param cosmosContainerName string
param applicationInsightsName string

@description('Base URL of the payment provider, as PAYMENTS_BASE_URL: the double\'s internal URL, or a real provider\'s.')
param paymentsBaseUrl string

@description('Key Vault URI (ends in a slash) holding the payment provider\'s API key.')
param keyVaultUri string

@description('Name of the Key Vault secret with the API key, passed as PAYMENTS_API_KEY through a Container Apps secret.')
param paymentsApiKeySecretName string

@minValue(0)
param minReplicas int = 0

@minValue(1)
@maxValue(1000)
param maxReplicas int = 10

@minValue(1)
@description('Active messages per replica before KEDA adds one; in session mode maxConcurrentSessions is the target instead.')
param messagesPerReplica int = 20

@minValue(1)
@maxValue(1000)
@description('Session mode: orders (sessions) one replica holds at once, each one message at a time, as WORKER_MAX_CONCURRENT_SESSIONS.')
param maxConcurrentSessions int = 8

@description('vCPU per replica (0.25 steps, memory must be 2 GiB per vCPU on Consumption).')
param cpu string = '0.5'
param memory string = '1Gi'

@description('Port of GET /health/live and GET /health/ready.')
param healthPort int = 8080

@allowed([
  'gateway'
  'direct'
])
@description('Cosmos DB connection mode; gateway (HTTPS) needs no extra outbound ports.')
param cosmosConnectionMode string = 'gateway'

param maxConcurrentCalls int = 16
param prefetchCount int = 0
param maxLockRenewal string = 'PT5M'

@allowed([
  'message-id'
  'cloudevents'
])
param keyStrategy string = 'message-id'

param maxBodyBytes int = 262144
param shutdownTimeout string = 'PT30S'

@description('Seconds between SIGTERM and SIGKILL; longer than WORKER_SHUTDOWN_TIMEOUT so in-flight messages settle.')
param terminationGracePeriodSeconds int = 60

// The placeholder is not the worker: it has no health endpoints, so it gets no probes. azure.yaml
// provisions again after the first deploy, which adds them with the real image. azd saves every output
// in the environment file and passes it back on the next provision, so the placeholder must never come
// back as "the image": the output below is empty while the placeholder runs, and a placeholder name
// passed in anyway (an environment file written before this rule) counts as no image.
var placeholderImage = 'mcr.microsoft.com/k8se/quickstart:latest'
var usePlaceholder = empty(imageName) || imageName == placeholderImage
var image = usePlaceholder ? placeholderImage : imageName

// KEDA's target of active messages per replica. In session mode a replica takes at most
// maxConcurrentSessions orders at once, one message at a time each: that is the backlog one replica
// works on, so a larger target (messagesPerReplica, 20 by default) would leave messages queued behind
// 8 sessions while KEDA adds no replica. Otherwise WORKER_MAX_CONCURRENT_CALLS messages run at once
// and messagesPerReplica is the queueing KEDA aims for (docs/deploy.md). As in consumer-app.bicep.
var activeMessagesPerReplica = queueRequiresSession ? maxConcurrentSessions : messagesPerReplica

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
    // Up to about 105 s for the JVM, the health server and the first connections.
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

var containerEnv = [
  {
    name: 'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE'
    value: serviceBusFullyQualifiedNamespace
  }
  {
    name: 'SERVICEBUS_QUEUE_NAME'
    value: queueName
  }
  {
    name: 'SERVICEBUS_LOCK_DURATION'
    value: queueLockDuration
  }
  {
    name: 'SERVICEBUS_MAX_DELIVERY_COUNT'
    value: string(queueMaxDeliveryCount)
  }
  {
    name: 'SERVICEBUS_MESSAGE_TTL'
    value: queueMessageTimeToLive
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
    name: 'WORKER_MAX_CONCURRENT_CALLS'
    value: string(maxConcurrentCalls)
  }
  {
    name: 'SERVICEBUS_SESSIONS'
    value: string(queueRequiresSession)
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
    // DefaultAzureCredential picks the worker identity, not the scaler's, by this client id.
    name: 'AZURE_CLIENT_ID'
    value: workerIdentityClientId
  }
  {
    name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
    secretRef: 'applicationinsights-connection-string'
  }
  {
    name: 'PAYMENTS_BASE_URL'
    value: paymentsBaseUrl
  }
  {
    name: 'OTEL_SERVICE_NAME'
    value: 'idemworker'
  }
  {
    // The relay runs in an app of its own (relay-app.bicep), always on: this one scales
    // to zero when the queue is empty, while the api still writes outbox events.
    name: 'RELAY_ENABLED'
    value: 'false'
  }
]

// With the real image only (see the app's secrets): the key, through a Container Apps secret that
// references Key Vault.
var keyVaultEnv = [
  {
    name: 'PAYMENTS_API_KEY'
    secretRef: 'payments-api-key'
  }
]

var insightsSecrets = [
  {
    name: 'applicationinsights-connection-string'
    value: applicationInsights.properties.ConnectionString
  }
]

var keyVaultSecrets = [
  {
    // A reference, not a value: Container Apps reads it with the worker identity.
    name: 'payments-api-key'
    keyVaultUrl: '${keyVaultUri}secrets/${paymentsApiKeySecretName}'
    identity: workerIdentityId
  }
]

resource app 'Microsoft.App/containerApps@2025-01-01' = {
  name: name
  location: location
  tags: union(tags, {
    'azd-service-name': 'worker'
  })
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${workerIdentityId}': {}
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
      // No ingress: the worker receives from Service Bus and serves only its own health port.
      registries: [
        {
          server: registryLoginServer
          identity: workerIdentityId
        }
      ]
      // Key Vault references only with the real image: Container Apps reads them when it creates or
      // updates the app, with the worker identity, and a role assignment made in the same provision
      // may not apply yet (microsoft/azure-container-apps#722). The placeholder needs no key, so the
      // first provision reads nothing; the one after azd publish, minutes later, does.
      secrets: usePlaceholder ? insightsSecrets : concat(insightsSecrets, keyVaultSecrets)
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
          env: usePlaceholder ? containerEnv : concat(containerEnv, keyVaultEnv)
          probes: usePlaceholder ? [] : probes
        }
      ]
      scale: {
        minReplicas: minReplicas
        maxReplicas: maxReplicas
        rules: [
          {
            name: 'servicebus-queue'
            custom: {
              type: 'azure-servicebus'
              metadata: {
                queueName: queueName
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
// Empty while the placeholder runs: see placeholderImage.
output imageName string = usePlaceholder ? '' : imageName
