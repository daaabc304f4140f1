// The outbox relay's Container App: the worker's image running `relay`, always exactly one replica.
// The relay must run whenever an outbox event can be written, and events are written by the api app
// (POST /orders) as well as by the worker; the worker scales to zero on an empty queue, so a relay
// inside it would leave HTTP-only orders unpublished (loyalty and customer-stats would never see them,
// and the relay-lag alert would stay silent). One replica because only one relay publishes at a time
// (a lease document); a second would stand by and cost a replica for nothing. It reads the change
// feed of the orders container and sends to the topic with the worker's identity, which holds both
// roles already (Cosmos DB Data Contributor; Data Sender scoped to the topic).
param location string
param tags object
param name string
param containerAppsEnvironmentId string

@description('The worker\'s image (the jar has every command); empty on the first provision.')
param imageName string = ''

param registryLoginServer string
param workerIdentityId string
param workerIdentityClientId string
param serviceBusFullyQualifiedNamespace string

@description('The topic the relay publishes to, as RELAY_TOPIC_NAME: the Service Bus module\'s output.')
param topicName string

param cosmosEndpoint string
param cosmosDatabaseName string
param cosmosContainerName string
param applicationInsightsName string

@description('Port of GET /health/live and GET /health/ready.')
param healthPort int = 8080

param cpu string = '0.25'
param memory string = '0.5Gi'

var placeholderImage = 'mcr.microsoft.com/k8se/quickstart:latest'
var usePlaceholder = empty(imageName) || imageName == placeholderImage
var image = usePlaceholder ? placeholderImage : imageName
// The image's ENTRYPOINT is the JVM with its options and CMD is `run`: `args` replaces CMD alone.
var args = [
  'relay'
]

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
  tags: tags
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${workerIdentityId}': {}
    }
  }
  properties: {
    environmentId: containerAppsEnvironmentId
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      // No ingress: the relay reads the change feed and sends to Service Bus.
      registries: [
        {
          server: registryLoginServer
          identity: workerIdentityId
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
      containers: [
        {
          name: 'relay'
          image: image
          args: usePlaceholder ? [] : args
          resources: {
            cpu: json(cpu)
            memory: memory
          }
          env: [
            {
              name: 'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE'
              value: serviceBusFullyQualifiedNamespace
            }
            {
              name: 'RELAY_TOPIC_NAME'
              value: topicName
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
              name: 'HEALTH_PORT'
              value: string(healthPort)
            }
            {
              name: 'AZURE_CLIENT_ID'
              value: workerIdentityClientId
            }
            {
              name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
              secretRef: 'applicationinsights-connection-string'
            }
            {
              // Its own cloud_RoleName, so the relay's telemetry is told apart from the worker's.
              name: 'OTEL_SERVICE_NAME'
              value: 'idemworker-relay'
            }
          ]
          probes: usePlaceholder ? [] : probes
        }
      ]
      scale: {
        // Always on: events can be written while the queue is empty (the api's orders).
        minReplicas: 1
        maxReplicas: 1
      }
    }
  }
}

output name string = app.name
