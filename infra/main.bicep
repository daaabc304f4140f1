// Entry point for `azd up`: creates the resource group and everything the worker needs in it.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the azd environment; used in resource names and the azd-env-name tag.')
param environmentName string

@minLength(1)
@description('Azure region for every resource.')
param location string

@description('Object id of whoever runs azd (AZURE_PRINCIPAL_ID). A person (principalType User) gets Cosmos DB data access, send/receive on the queue and the topic and the api key, so local runs against Azure work; a service principal (CI) gets none of it. Empty to skip.')
param principalId string = ''

@description('Principal type of principalId (User for a person, ServicePrincipal for a CI identity); main.parameters.json takes it from AZURE_PRINCIPAL_TYPE.')
@allowed([
  'User'
  'ServicePrincipal'
])
param principalType string = 'User'

@description('Container image of the worker: SERVICE_WORKER_IMAGE_NAME, which azd publish saves. Used only while workerExists; empty (or the placeholder) runs a placeholder without probes or Key Vault references, so the first provision succeeds before any image exists.')
param workerImageName string = ''

@description('Container image of the payment provider double (the Dockerfile\'s payments-double target): SERVICE_PAYMENTS_IMAGE_NAME, as for the worker.')
param paymentsImageName string = ''

@minValue(0)
@maxValue(30)
@description('Fewest worker replicas. 0 lets KEDA scale the worker to zero when the queue is empty.')
param workerMinReplicas int = 0

@minValue(1)
@maxValue(1000)
@description('Most worker replicas (sizing in docs/deploy.md).')
param workerMaxReplicas int = 10

@minValue(1)
@description('KEDA target: active messages in the queue per replica. The queue settles near replicas x this value, so this divided by the rate of one replica is the queueing delay KEDA aims for (docs/deploy.md).')
param workerMessagesPerReplica int = 20

@allowed([
  'serverless'
  'autoscale'
])
@description('Cosmos DB capacity: serverless (pay per request unit) or autoscale (provisioned RU/s on the container, up to cosmosAutoscaleMaxThroughput). Fixed when the account is created.')
param cosmosCapacityMode string = 'serverless'

@minValue(1000)
@maxValue(1000000)
@description('autoscale only: the most RU/s the orders container may use, in steps of 1000 (it scales down to a tenth of this).')
param cosmosAutoscaleMaxThroughput int = 4000

@allowed([
  'Standard'
  'Premium'
])
@description('Service Bus tier: Standard (shared, pay per operation) or Premium (dedicated messaging units).')
param serviceBusSku string = 'Standard'

@allowed([
  1
  2
  4
  8
  16
])
@description('Premium only: messaging units, a multiple of serviceBusPremiumPartitions.')
param serviceBusMessagingUnits int = 1

@allowed([
  1
  2
  4
])
@description('Premium only: namespace partitions, fixed when the namespace is created.')
param serviceBusPremiumPartitions int = 1

@description('Session mode: create the orders queue and the consumers\' topic subscriptions with requiresSession (fixed at creation) and run the worker and the consumers with SERVICEBUS_SESSIONS=true; producers then set SessionId = orderId, as the relay always does (docs/sessions.md).')
param serviceBusSessions bool = false

// The three secrets are generated here, not by azd: newGuid() gives 122 random bits on every
// deployment, and the template writes them to the vault only on the provision that seeds it
// (seedSecrets), so later values are thrown away and azd never reads the vault. azd's
// $(secretOrRandomPassword) made 15 characters (below the 16 every reader requires) and, once the
// vault existed, needed the deploying principal to read every secret, failing on 403
// (docs/deploy.md, "The secrets").
@secure()
@description('Generated on every deployment; becomes the payment provider API key (payments-api-key) only when the vault is seeded.')
param generatedPaymentsApiKey string = newGuid()

@secure()
@description('Generated on every deployment; becomes the webhook signing secret (payments-webhook-secret) only when the vault is seeded.')
param generatedPaymentsWebhookSecret string = newGuid()

@secure()
@description('Generated on every deployment; becomes the api key (api-key) only when the vault is seeded.')
param generatedApiKey string = newGuid()

@description('Whether the worker app exists now, as azd found it just before this provision: azd sets SERVICE_WORKER_RESOURCE_EXISTS in a preprovision handler from a search of the resource group for the app tagged azd-service-name: worker (pkg/project/service_target_containerapp.go). false is a new deployment (the first provision, after azd down, after the resource group was deleted by hand): a new vault is named and seeded and every app starts on the placeholder. Never an output passed back, so an old .env cannot claim what Azure no longer holds.')
param workerExists bool = false

@description('The vault of this deployment while workerExists: the AZURE_KEY_VAULT_NAME output, which azd saved and main.parameters.json passes back. Ignored for a new deployment.')
param existingKeyVaultName string = ''

@description('Random on every deployment; only a new deployment uses it, to name its vault. azd down without --purge, or a resource group deleted by hand, leaves the old vault soft-deleted under its name for 7 days, and a vault PUT under that name would be refused.')
param keyVaultSeed string = newGuid()

@description('Where the payment provider double delivers its webhooks. Empty (default) = the api app\'s POST /webhooks/payments (its URL + /webhooks/payments); set PAYMENTS_WEBHOOK_URL to send elsewhere.')
param paymentsWebhookUrl string = ''

@description('Base URL of a real payment provider (PAYMENTS_PROVIDER_BASE_URL). Set exactly when paymentsDouble is off: the provision stops, naming both, when only one of them says so.')
param paymentsBaseUrl string = ''

@description('PAYMENTS_DOUBLE, the variable azure.yaml\'s `condition` of the payments service reads too (same default): truthy as azd reads a condition (1, true, TRUE, True, yes, YES, Yes; pkg/project/service_config.go) deploys the payment provider double as a second Container App and points the worker at its internal URL. One variable, so azd never builds a double Bicep did not deploy, nor the reverse.')
param paymentsDouble string = 'true'
@description('E-mail address that alert notifications go to; empty = the alert rules fire (visible under Alerts) but notify nobody. main.parameters.json takes it from ALERT_EMAIL.')
param alertEmail string = ''

@minValue(-1)
@description('Log Analytics daily ingestion cap in GB (LOG_DAILY_CAP_GB); -1, the default, is none. A cap bounds the bill of a noisy replica but stops ingestion for the rest of the day once reached, silencing four of the five alerts; set one (1 is cheap) only for a short-lived demo environment. An alert fires when the cap is reached.')
param logDailyCapGb int = -1

@minValue(1)
@description('Outbox relay lag in seconds above which the relay alert fires.')
param relayLagThresholdSeconds int = 300

@allowed([
  'apikey'
  'entra'
])
@description('How clients of the HTTP order intake (api) authenticate: apikey (X-Api-Key, the key in Key Vault) or entra (Container Apps authentication with Entra ID in front; set apiEntraClientId).')
param apiAuthMode string = 'apikey'

@description('entra only: application (client) id of the Entra ID app registration the intake\'s tokens are issued for.')
param apiEntraClientId string = ''

@description('entra only: the client application ids allowed to call the api (the authConfig and the app both check them).')
param apiEntraAllowedApplications array = []

@description('How long the intake replays an answer for its Idempotency-Key (ISO 8601).')
param apiIdempotencyTtl string = 'P1D'

var abbrs = loadJsonContent('abbreviations.json')
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
}
var queueName = 'orders'
var databaseName = 'idemworker'
var containerName = 'orders'
var customersContainerName = 'customers'
var paymentsApiKeySecretName = 'payments-api-key'
var paymentsWebhookSecretName = 'payments-webhook-secret'
var apiKeySecretName = 'api-key'
// A new deployment names a new vault (24 characters at most: 'kv-', the token, '-', 7 random) and
// seeds it; an existing one keeps its vault, whose secrets are never written again (a real
// provider's key set by hand is kept, and azd never reads the vault).
var keyVaultName = workerExists ? (empty(existingKeyVaultName) ? fail('The worker app exists but AZURE_KEY_VAULT_NAME is not in this azd environment (a new .env for an existing deployment): run azd env refresh, then provision again.') : existingKeyVaultName) : '${abbrs.keyVaultVaults}${resourceToken}-${take(uniqueString(keyVaultSeed), 7)}'
var seedSecrets = !workerExists
// The images azd published, only while the deployment exists: after the resource group was deleted
// by hand the .env still names images the new registry does not hold.
var workerImage = workerExists ? workerImageName : ''
var paymentsImage = workerExists ? paymentsImageName : ''
var entraClientIdMissing = apiAuthMode == 'entra' && empty(apiEntraClientId)
var entraApplicationsMissing = apiAuthMode == 'entra' && empty(apiEntraAllowedApplications)
// Data-plane rights for whoever runs azd only when that is a person: a CI service principal deploys,
// it does not send, receive, read orders or call the api.
var deployerPrincipalId = principalType == 'User' ? principalId : ''
var deployPaymentsDouble = contains([
  '1'
  'true'
  'TRUE'
  'True'
  'yes'
  'YES'
  'Yes'
], paymentsDouble)

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: '${abbrs.resourcesResourceGroups}${environmentName}'
  location: location
  tags: tags
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    location: location
    tags: tags
    logAnalyticsName: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
    applicationInsightsName: '${abbrs.insightsComponents}${resourceToken}'
    dailyQuotaGb: logDailyCapGb
  }
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    location: location
    tags: tags
    workerIdentityName: '${abbrs.managedIdentityUserAssignedIdentities}worker-${resourceToken}'
    scalerIdentityName: '${abbrs.managedIdentityUserAssignedIdentities}scaler-${resourceToken}'
    paymentsIdentityName: '${abbrs.managedIdentityUserAssignedIdentities}payments-${resourceToken}'
    loyaltyIdentityName: '${abbrs.managedIdentityUserAssignedIdentities}loyalty-${resourceToken}'
    customerStatsIdentityName: '${abbrs.managedIdentityUserAssignedIdentities}customer-stats-${resourceToken}'
  }
}

module registry 'modules/registry.bicep' = {
  name: 'registry'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.containerRegistryRegistries}${resourceToken}'
    pullPrincipalId: identity.outputs.workerPrincipalId
    paymentsPullPrincipalId: identity.outputs.paymentsPrincipalId
    loyaltyPullPrincipalId: identity.outputs.loyaltyPrincipalId
    customerStatsPullPrincipalId: identity.outputs.customerStatsPrincipalId
  }
}

module serviceBus 'modules/servicebus.bicep' = {
  name: 'servicebus'
  scope: rg
  params: {
    location: location
    tags: tags
    namespaceName: '${abbrs.serviceBusNamespaces}${resourceToken}'
    queueName: queueName
    sku: serviceBusSku
    messagingUnits: serviceBusMessagingUnits
    premiumPartitions: serviceBusPremiumPartitions
    requiresSession: serviceBusSessions
    workerPrincipalId: identity.outputs.workerPrincipalId
    scalerPrincipalId: identity.outputs.scalerPrincipalId
    loyaltyPrincipalId: identity.outputs.loyaltyPrincipalId
    customerStatsPrincipalId: identity.outputs.customerStatsPrincipalId
    userPrincipalId: deployerPrincipalId
    userPrincipalType: principalType
  }
}

module cosmos 'modules/cosmos.bicep' = {
  name: 'cosmos'
  scope: rg
  params: {
    location: location
    tags: tags
    accountName: '${abbrs.documentDBDatabaseAccounts}${resourceToken}'
    databaseName: databaseName
    containerName: containerName
    capacityMode: cosmosCapacityMode
    autoscaleMaxThroughput: cosmosAutoscaleMaxThroughput
    workerPrincipalId: identity.outputs.workerPrincipalId
    customersContainerName: customersContainerName
    loyaltyPrincipalId: identity.outputs.loyaltyPrincipalId
    customerStatsPrincipalId: identity.outputs.customerStatsPrincipalId
    userPrincipalId: deployerPrincipalId
  }
}

module telemetryRoles 'modules/telemetry-roles.bicep' = {
  name: 'telemetry-roles'
  scope: rg
  params: {
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    workerPrincipalId: identity.outputs.workerPrincipalId
    loyaltyPrincipalId: identity.outputs.loyaltyPrincipalId
    customerStatsPrincipalId: identity.outputs.customerStatsPrincipalId
  }
}

module containerAppsEnvironment 'modules/containerapps-env.bicep' = {
  name: 'containerapps-env'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appManagedEnvironments}${resourceToken}'
    logAnalyticsWorkspaceName: monitoring.outputs.logAnalyticsWorkspaceName
  }
}

module keyVault 'modules/keyvault.bicep' = {
  name: 'keyvault'
  scope: rg
  params: {
    location: location
    tags: tags
    name: keyVaultName
    seedSecrets: seedSecrets
    paymentsApiKey: replace(generatedPaymentsApiKey, '-', '')
    paymentsApiKeySecretName: paymentsApiKeySecretName
    paymentsWebhookSecret: replace(generatedPaymentsWebhookSecret, '-', '')
    paymentsWebhookSecretName: paymentsWebhookSecretName
    apiKey: replace(generatedApiKey, '-', '')
    apiKeySecretName: apiKeySecretName
    workerPrincipalId: identity.outputs.workerPrincipalId
    paymentsPrincipalId: identity.outputs.paymentsPrincipalId
    userPrincipalId: deployerPrincipalId
    userPrincipalType: principalType
  }
}

module payments 'modules/payments-app.bicep' = if (deployPaymentsDouble) {
  name: 'payments'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appContainerApps}payments-${resourceToken}'
    containerAppsEnvironmentId: containerAppsEnvironment.outputs.id
    // Its own image (azure.yaml service `payments`, the Dockerfile's payments-double target): the
    // worker's image holds no emulator.
    imageName: paymentsImage
    registryLoginServer: registry.outputs.loginServer
    paymentsIdentityId: identity.outputs.paymentsId
    // Waits for the vault module, so the secret and its role assignments exist first.
    keyVaultUri: keyVault.outputs.vaultUri
    apiKeySecretName: paymentsApiKeySecretName
    webhookSecretName: paymentsWebhookSecretName
    // The api app serves POST /webhooks/payments; the api does not depend on the double, so no cycle.
    webhookUrl: empty(paymentsWebhookUrl) ? apiApp.outputs.webhookUrl : paymentsWebhookUrl
  }
}

module worker 'modules/worker-app.bicep' = {
  name: 'worker'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appContainerApps}worker-${resourceToken}'
    containerAppsEnvironmentId: containerAppsEnvironment.outputs.id
    imageName: workerImage
    // Using the registry module's output makes the app wait for the whole module, including the
    // AcrPull assignment: a fresh identity without it makes the first image pull time out.
    registryLoginServer: registry.outputs.loginServer
    workerIdentityId: identity.outputs.workerId
    workerIdentityClientId: identity.outputs.workerClientId
    scalerIdentityId: identity.outputs.scalerId
    serviceBusNamespaceName: serviceBus.outputs.namespaceName
    serviceBusFullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
    // Likewise the Service Bus module (and the scaler's Data Owner assignment) completes first.
    queueName: serviceBus.outputs.queueName
    // The queue's settings as the Service Bus module set them, so the worker cannot disagree with them.
    queueLockDuration: serviceBus.outputs.lockDuration
    queueMaxDeliveryCount: serviceBus.outputs.maxDeliveryCount
    queueMessageTimeToLive: serviceBus.outputs.defaultMessageTimeToLive
    queueRequiresSession: serviceBus.outputs.requiresSession
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    cosmosContainerName: cosmos.outputs.containerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    // PAYMENTS_DOUBLE decides; a provider URL that says otherwise stops the provision here.
    paymentsBaseUrl: deployPaymentsDouble ? (empty(paymentsBaseUrl) ? payments.outputs.baseUrl : fail('PAYMENTS_PROVIDER_BASE_URL is set but PAYMENTS_DOUBLE is on (it defaults to true), so azd would build and deploy the payments double: azd env set PAYMENTS_DOUBLE false to use the provider, or azd env unset PAYMENTS_PROVIDER_BASE_URL to keep the double.')) : (empty(paymentsBaseUrl) ? fail('PAYMENTS_DOUBLE is off but PAYMENTS_PROVIDER_BASE_URL is empty, so the worker would call no provider: azd env set PAYMENTS_PROVIDER_BASE_URL https://<provider>, or azd env set PAYMENTS_DOUBLE true.') : paymentsBaseUrl)
    keyVaultUri: keyVault.outputs.vaultUri
    paymentsApiKeySecretName: paymentsApiKeySecretName
    minReplicas: workerMinReplicas
    maxReplicas: workerMaxReplicas
    messagesPerReplica: workerMessagesPerReplica
  }
}

// The outbox relay, always one replica: events are written by the api as well as by the worker, and
// the worker scales to zero on an empty queue. The topic's name comes from the Service Bus module.
module relayApp 'modules/relay-app.bicep' = {
  name: 'relay'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appContainerApps}relay-${resourceToken}'
    containerAppsEnvironmentId: containerAppsEnvironment.outputs.id
    imageName: workerImage
    registryLoginServer: registry.outputs.loginServer
    workerIdentityId: identity.outputs.workerId
    workerIdentityClientId: identity.outputs.workerClientId
    serviceBusFullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
    topicName: serviceBus.outputs.topicName
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    cosmosContainerName: cosmos.outputs.containerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

// The topic's consumers, one Container App each so KEDA scales each on its own subscription. Each
// reads its subscription with its own identity; the subscription's settings come from the Service
// Bus module's outputs, like the queue's for the order worker. Module outputs as parameters make
// each app wait for its identity's AcrPull, Data Receiver and Cosmos assignments.
module loyaltyApp 'modules/consumer-app.bicep' = {
  name: 'consumer-loyalty'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appContainerApps}loyalty-${resourceToken}'
    containerAppsEnvironmentId: containerAppsEnvironment.outputs.id
    role: 'loyalty'
    imageName: workerImage
    registryLoginServer: registry.outputs.loginServer
    consumerIdentityId: identity.outputs.loyaltyId
    consumerIdentityClientId: identity.outputs.loyaltyClientId
    scalerIdentityId: identity.outputs.scalerId
    serviceBusNamespaceName: serviceBus.outputs.namespaceName
    serviceBusFullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
    topicName: serviceBus.outputs.topicName
    subscriptionName: serviceBus.outputs.loyaltySubscriptionName
    subscriptionRequiresSession: serviceBus.outputs.subscriptionRequiresSession
    subscriptionLockDuration: serviceBus.outputs.subscriptionLockDuration
    subscriptionMaxDeliveryCount: serviceBus.outputs.subscriptionMaxDeliveryCount
    subscriptionMessageTimeToLive: serviceBus.outputs.subscriptionMessageTimeToLive
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    cosmosContainerName: cosmos.outputs.customersContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    minReplicas: workerMinReplicas
    maxReplicas: workerMaxReplicas
    messagesPerReplica: workerMessagesPerReplica
  }
}

module customerStatsApp 'modules/consumer-app.bicep' = {
  name: 'consumer-customer-stats'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appContainerApps}customer-stats-${resourceToken}'
    containerAppsEnvironmentId: containerAppsEnvironment.outputs.id
    role: 'customer-stats'
    imageName: workerImage
    registryLoginServer: registry.outputs.loginServer
    consumerIdentityId: identity.outputs.customerStatsId
    consumerIdentityClientId: identity.outputs.customerStatsClientId
    scalerIdentityId: identity.outputs.scalerId
    serviceBusNamespaceName: serviceBus.outputs.namespaceName
    serviceBusFullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
    topicName: serviceBus.outputs.topicName
    subscriptionName: serviceBus.outputs.customerStatsSubscriptionName
    subscriptionRequiresSession: serviceBus.outputs.subscriptionRequiresSession
    subscriptionLockDuration: serviceBus.outputs.subscriptionLockDuration
    subscriptionMaxDeliveryCount: serviceBus.outputs.subscriptionMaxDeliveryCount
    subscriptionMessageTimeToLive: serviceBus.outputs.subscriptionMessageTimeToLive
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    cosmosContainerName: cosmos.outputs.customersContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    minReplicas: workerMinReplicas
    maxReplicas: workerMaxReplicas
    messagesPerReplica: workerMessagesPerReplica
  }
}

// The HTTP order intake: its own app, identity and role assignments (made inside the module, before
// the app); the vault, registry and Cosmos DB outputs make it wait for those modules.
module apiApp 'modules/api-app.bicep' = {
  name: 'api'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.appContainerApps}api-${resourceToken}'
    identityName: '${abbrs.managedIdentityUserAssignedIdentities}api-${resourceToken}'
    containerAppsEnvironmentId: containerAppsEnvironment.outputs.id
    imageName: workerImage
    registryName: registry.outputs.name
    registryLoginServer: registry.outputs.loginServer
    cosmosAccountName: cosmos.outputs.accountName
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    cosmosContainerName: cosmos.outputs.containerName
    keyVaultName: keyVault.outputs.name
    keyVaultUri: keyVault.outputs.vaultUri
    authMode: apiAuthMode
    apiKeySecretName: apiKeySecretName
    // entra without a client id would deploy an auth config that refuses every token: stop first.
    entraClientId: entraClientIdMissing ? fail('apiAuthMode is entra but apiEntraClientId is empty: azd env set API_ENTRA_CLIENT_ID <the app registration\'s client id>') : apiEntraClientId
    // entra that admits no application would refuse every caller, and the api refuses to start: stop first.
    entraAllowedApplications: entraApplicationsMissing ? fail('apiAuthMode is entra but apiEntraAllowedApplications is empty: azd env set API_ENTRA_ALLOWED_APPLICATIONS \'["<client application id>"]\'') : apiEntraAllowedApplications
    idempotencyTtl: apiIdempotencyTtl
    // The secret exists before the api reads it: keyVault.outputs above make it wait for that module.
    paymentsWebhookSecretName: paymentsWebhookSecretName
  }
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    location: location
    tags: tags
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    logAnalyticsWorkspaceName: monitoring.outputs.logAnalyticsWorkspaceName
    serviceBusNamespaceName: serviceBus.outputs.namespaceName
    workerAppName: worker.outputs.name
    alertEmail: alertEmail
    relayLagThresholdSeconds: relayLagThresholdSeconds
    logDailyCapGb: logDailyCapGb
  }
}

module workbook 'modules/workbook.bicep' = {
  name: 'workbook'
  scope: rg
  params: {
    location: location
    tags: tags
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    serviceBusNamespaceName: serviceBus.outputs.namespaceName
  }
}

// Outputs become azd environment values (.azure/<env>/.env). Endpoints and names only: no keys,
// no connection strings (the Application Insights connection string is passed to the app directly).
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_CONTAINER_REGISTRY_ENDPOINT string = registry.outputs.loginServer
output AZURE_CONTAINER_REGISTRY_NAME string = registry.outputs.name
output AZURE_CONTAINER_APPS_ENVIRONMENT_NAME string = containerAppsEnvironment.outputs.name
output AZURE_CONTAINER_APPS_ENVIRONMENT_ID string = containerAppsEnvironment.outputs.id
output SERVICE_WORKER_NAME string = worker.outputs.name
output SERVICE_WORKER_IMAGE_NAME string = worker.outputs.imageName
output SERVICE_PAYMENTS_IMAGE_NAME string = deployPaymentsDouble ? payments.outputs.imageName : ''
output WORKER_IDENTITY_CLIENT_ID string = identity.outputs.workerClientId
output SERVICEBUS_NAMESPACE_NAME string = serviceBus.outputs.namespaceName
output SERVICEBUS_FULLY_QUALIFIED_NAMESPACE string = serviceBus.outputs.fullyQualifiedNamespace
output SERVICEBUS_QUEUE_NAME string = serviceBus.outputs.queueName
output COSMOS_ACCOUNT_NAME string = cosmos.outputs.accountName
output COSMOS_ENDPOINT string = cosmos.outputs.endpoint
output COSMOS_DATABASE string = cosmos.outputs.databaseName
output COSMOS_CONTAINER string = cosmos.outputs.containerName
// Read back by main.parameters.json as existingKeyVaultName: while the worker app exists, this vault
// (seeded by the provision that created it) is the deployment's. azd down removes it.
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name
output SERVICEBUS_TOPIC_NAME string = serviceBus.outputs.topicName
output COSMOS_CUSTOMERS_CONTAINER string = cosmos.outputs.customersContainerName
output RELAY_APP_NAME string = relayApp.outputs.name
output LOYALTY_APP_NAME string = loyaltyApp.outputs.name
output CUSTOMER_STATS_APP_NAME string = customerStatsApp.outputs.name
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.applicationInsightsName
output API_APP_NAME string = apiApp.outputs.name
output API_URL string = apiApp.outputs.url
