// The HTTP order intake (`api`: POST /orders with an Idempotency-Key, and the payment provider's
// signed webhooks at POST /webhooks/payments) as its own Container App: the worker's image with
// another command, external ingress, its own user-assigned identity (Cosmos DB data access to the
// orders container, AcrPull and the webhook signing secret, nothing of Service Bus), and either an API key
// from Key Vault (authMode 'apikey') or Container Apps' built-in authentication with Entra ID in
// front (authMode 'entra'). Self-contained: the identity and its role assignments are made here,
// before the app, so a fresh identity can pull the image on the first revision.
param location string
param tags object
param name string
param identityName string
param containerAppsEnvironmentId string

@description('The worker\'s image (the jar has every command); empty on the first provision.')
param imageName string = ''

param registryName string
param registryLoginServer string
param cosmosAccountName string
param cosmosEndpoint string
param cosmosDatabaseName string
param cosmosContainerName string
param keyVaultName string
param keyVaultUri string

@allowed([
  'apikey'
  'entra'
])
@description('apikey: X-Api-Key checked against a Key Vault secret; entra: Container Apps authentication validates Entra ID tokens in front of the app.')
param authMode string = 'apikey'

@description('Name of the API key\'s Key Vault secret, written once by the vault module (whatever the mode).')
param apiKeySecretName string

@description('Name of the Key Vault secret the payment provider signs its webhooks with (made by the vault module), passed as PAYMENTS_WEBHOOK_SECRET. POST /webhooks/payments checks signatures with it and does not take API_AUTH.')
param paymentsWebhookSecretName string

@description('How long a webhook:{eventId} marker lives (ISO 8601 or never), as PAYMENTS_WEBHOOK_MARKER_TTL. Must outlive the provider\'s redelivery window (how long it resends an event it got no 2xx for), or a late copy is applied twice.')
param webhookMarkerTtl string = 'P14D'

@description('entra only: the application (client) id of the Entra ID app registration that represents the api; tokens must be issued for it.')
param entraClientId string = ''

@description('entra only: the client application ids allowed to call the api. The authConfig admits only these applications, and the app checks the same ids, as API_ENTRA_ALLOWED_APPLICATIONS; the app refuses to start entra without one.')
param entraAllowedApplications array = []

@description('How long an answer is replayed for its Idempotency-Key (ISO 8601), as API_IDEMPOTENCY_TTL.')
param idempotencyTtl string = 'P1D'

@description('How long a request in flight holds its key (ISO 8601), as API_LEASE.')
param lease string = 'PT30S'

@description('Port of POST /orders and of the health endpoints.')
param port int = 8080

@minValue(1)
param minReplicas int = 1

@minValue(1)
@maxValue(300)
param maxReplicas int = 10

@minValue(1)
@description('Concurrent requests per replica before the HTTP scale rule adds one.')
param concurrentRequestsPerReplica int = 50

param cpu string = '0.5'
param memory string = '1Gi'

var acrPullRoleId = '7f951dda-4ed3-4680-a7ca-43fe172d538d'
var secretsUserRoleId = '4633458b-17de-408a-b874-0445c86b69e6'
var useApiKey = authMode == 'apikey'
var placeholderImage = 'mcr.microsoft.com/k8se/quickstart:latest'
var usePlaceholder = empty(imageName) || imageName == placeholderImage
var image = usePlaceholder ? placeholderImage : imageName
// The image's ENTRYPOINT is the JVM with its options and CMD is `run`: `args` replaces CMD alone, so
// the api keeps every JVM option of the image (a `command` would replace them all).
var args = [
  'api'
]

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: identityName
  location: location
  tags: tags
}

resource registry 'Microsoft.ContainerRegistry/registries@2023-07-01' existing = {
  name: registryName
}

resource acrPull 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(registry.id, identity.id, acrPullRoleId)
  scope: registry
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', acrPullRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource cosmosAccount 'Microsoft.DocumentDB/databaseAccounts@2025-04-15' existing = {
  name: cosmosAccountName
}

// Built-in Data Contributor on the orders container only: the api writes orders and its request
// records there, and nothing else.
resource cosmosDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: cosmosAccount
  name: guid(cosmosAccount.id, identity.id, 'api-data-contributor')
  properties: {
    roleDefinitionId: '${cosmosAccount.id}/sqlRoleDefinitions/00000000-0000-0000-0000-000000000002'
    principalId: identity.properties.principalId
    scope: '${cosmosAccount.id}/dbs/${cosmosDatabaseName}/colls/${cosmosContainerName}'
  }
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

// Written by the vault module on the provision that seeds the vault; keyVaultName comes from that
// module's output, so this module starts after the write.
resource apiKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' existing = {
  parent: vault
  name: apiKeySecretName
}

// In both modes: switching to apikey later must not make the role in the same provision that reads the
// secret with it (a new assignment may take minutes to apply). The identity is the api's own; the key
// is the one it checks.
resource apiSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, apiKeySecretName, identity.id, secretsUserRoleId)
  scope: apiKeySecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource paymentsWebhookSecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' existing = {
  parent: vault
  name: paymentsWebhookSecretName
}

// The webhook receiver checks signatures with the secret: this identity may read that one secret.
resource webhookSecretUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, paymentsWebhookSecretName, identity.id, secretsUserRoleId)
  scope: paymentsWebhookSecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

var probes = [
  {
    type: 'Startup'
    httpGet: {
      path: '/health/live'
      port: port
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
      port: port
    }
    periodSeconds: 10
    timeoutSeconds: 3
    failureThreshold: 3
  }
  {
    type: 'Readiness'
    httpGet: {
      path: '/health/ready'
      port: port
    }
    periodSeconds: 10
    timeoutSeconds: 3
    failureThreshold: 3
  }
]

var baseEnv = [
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
    name: 'API_PORT'
    value: string(port)
  }
  {
    name: 'API_AUTH'
    value: authMode
  }
  {
    name: 'API_IDEMPOTENCY_TTL'
    value: idempotencyTtl
  }
  {
    name: 'API_LEASE'
    value: lease
  }
  {
    // DefaultAzureCredential picks this identity.
    name: 'AZURE_CLIENT_ID'
    value: identity.properties.clientId
  }
]
var keyEnv = [
  {
    name: 'API_KEY'
    secretRef: 'api-key'
  }
]
var entraEnv = [
  {
    name: 'API_ENTRA_ALLOWED_APPLICATIONS'
    value: join(entraAllowedApplications, ',')
  }
]
var webhookEnv = [
  {
    name: 'PAYMENTS_WEBHOOK_SECRET'
    secretRef: 'payments-webhook-secret'
  }
  {
    name: 'PAYMENTS_WEBHOOK_MARKER_TTL'
    value: webhookMarkerTtl
  }
]

// A Key Vault reference read with the app's own identity: the value never passes through here.
var keySecrets = [
  {
    name: 'api-key'
    keyVaultUrl: '${keyVaultUri}secrets/${apiKeySecretName}'
    identity: identity.id
  }
]
var webhookSecrets = [
  {
    name: 'payments-webhook-secret'
    keyVaultUrl: '${keyVaultUri}secrets/${paymentsWebhookSecretName}'
    identity: identity.id
  }
]

resource app 'Microsoft.App/containerApps@2025-01-01' = {
  name: name
  location: location
  tags: union(tags, {
    'idemworker-role': 'api'
  })
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    environmentId: containerAppsEnvironmentId
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      ingress: {
        external: true
        targetPort: usePlaceholder ? 80 : port
        transport: 'http'
        allowInsecure: false
      }
      registries: [
        {
          server: registryLoginServer
          identity: identity.id
        }
      ]
      // Key Vault references only with the real image, as in worker-app.bicep: the placeholder reads
      // no secret in the provision that makes this identity's roles.
      secrets: usePlaceholder ? [] : (useApiKey ? concat(keySecrets, webhookSecrets) : webhookSecrets)
    }
    template: {
      containers: [
        {
          name: 'api'
          image: image
          args: usePlaceholder ? [] : args
          resources: {
            cpu: json(cpu)
            memory: memory
          }
          env: usePlaceholder ? baseEnv : (useApiKey ? concat(baseEnv, keyEnv, webhookEnv) : concat(baseEnv, entraEnv, webhookEnv))
          probes: usePlaceholder ? [] : probes
        }
      ]
      scale: {
        minReplicas: minReplicas
        maxReplicas: maxReplicas
        rules: [
          {
            name: 'http-requests'
            http: {
              metadata: {
                concurrentRequests: string(concurrentRequestsPerReplica)
              }
            }
          }
        ]
      }
    }
  }
  dependsOn: [
    acrPull
    cosmosDataAccess
    apiSecretsUser
    webhookSecretUser
  ]
}

// entra: the platform validates the caller's token before the request reaches the app, answers 401
// without one or from an application not in entraAllowedApplications, and passes the caller in the
// X-MS-CLIENT-PRINCIPAL* headers, which API_AUTH entra checks against each other and against the same
// list. The headers are not signed: ingress must reach the app only through this authentication. The probes go to the container directly; the health paths are excluded all the same. The
// payment provider carries no Entra ID token: its webhooks authenticate by their signature, checked
// by the app, so their path is excluded too.
// Declared in both modes, enabled only in entra: azd deploys incrementally, so a config left out
// when switching back to apikey would stay enabled and refuse every X-Api-Key caller.
resource authConfig 'Microsoft.App/containerApps/authConfigs@2025-01-01' = {
  parent: app
  name: 'current'
  properties: {
    platform: {
      enabled: !useApiKey
    }
    globalValidation: {
      unauthenticatedClientAction: 'Return401'
      excludedPaths: [
        '/health/live'
        '/health/ready'
        '/webhooks/payments'
      ]
    }
    identityProviders: {
      // Enabled in entra only: in apikey mode the registration has no client id, and a provider
      // left enabled with an empty one is a configuration Container Apps would have to reject or
      // ignore.
      azureActiveDirectory: {
        enabled: !useApiKey
        registration: {
          clientId: entraClientId
          openIdIssuer: '${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'
        }
        validation: {
          allowedAudiences: [
            'api://${entraClientId}'
            entraClientId
          ]
          defaultAuthorizationPolicy: {
            allowedApplications: entraAllowedApplications
          }
        }
      }
    }
  }
}

output name string = app.name
output principalId string = identity.properties.principalId
output url string = 'https://${app.properties.configuration.ingress.fqdn}'
output webhookUrl string = 'https://${app.properties.configuration.ingress.fqdn}/webhooks/payments'
