// Five user-assigned identities: the worker's own (receive, send, Cosmos data, AcrPull, telemetry);
// the KEDA scaler's, which needs the Manage claim (Data Owner) to read the queue's and the
// subscriptions' message counts and is therefore kept apart from the identities the worker code
// authenticates with; the payments double's; and one per topic consumer (loyalty, customer-stats).
param location string
param tags object
param workerIdentityName string
param scalerIdentityName string
param paymentsIdentityName string
param loyaltyIdentityName string
param customerStatsIdentityName string

resource worker 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: workerIdentityName
  location: location
  tags: tags
}

resource scaler 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: scalerIdentityName
  location: location
  tags: tags
}

// The payments double's: AcrPull and the API key only, nothing of the worker's data.
resource payments 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: paymentsIdentityName
  location: location
  tags: tags
}

// One per consumer app, so each receives from its own subscription only.
resource loyalty 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: loyaltyIdentityName
  location: location
  tags: tags
}

resource customerStats 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: customerStatsIdentityName
  location: location
  tags: tags
}

output workerId string = worker.id
output workerName string = worker.name
output workerPrincipalId string = worker.properties.principalId
output workerClientId string = worker.properties.clientId
output scalerId string = scaler.id
output scalerPrincipalId string = scaler.properties.principalId
output paymentsId string = payments.id
output paymentsPrincipalId string = payments.properties.principalId
output loyaltyId string = loyalty.id
output loyaltyPrincipalId string = loyalty.properties.principalId
output loyaltyClientId string = loyalty.properties.clientId
output customerStatsId string = customerStats.id
output customerStatsPrincipalId string = customerStats.properties.principalId
output customerStatsClientId string = customerStats.properties.clientId
