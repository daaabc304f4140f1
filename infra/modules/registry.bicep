// Container registry for the worker image, pulled by the worker identity and the payments double's (no admin user, no passwords).
param location string
param tags object
param name string

@description('Principal id of the identity that pulls images (AcrPull).')
param pullPrincipalId string

@description('Principal id of the payments double\'s identity, which pulls the same image (AcrPull).')
param paymentsPullPrincipalId string

@description('Principal ids of the consumer apps\' identities (loyalty, customer-stats), which pull the same image (AcrPull).')
param loyaltyPullPrincipalId string
param customerStatsPullPrincipalId string

@allowed([
  'Basic'
  'Standard'
  'Premium'
])
param sku string = 'Basic'

var acrPullRoleId = '7f951dda-4ed3-4680-a7ca-43fe172d538d'

resource registry 'Microsoft.ContainerRegistry/registries@2023-07-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: sku
  }
  properties: {
    adminUserEnabled: false
    publicNetworkAccess: 'Enabled'
  }
}

resource acrPull 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(registry.id, pullPrincipalId, acrPullRoleId)
  scope: registry
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', acrPullRoleId)
    principalId: pullPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource paymentsAcrPull 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(registry.id, paymentsPullPrincipalId, acrPullRoleId)
  scope: registry
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', acrPullRoleId)
    principalId: paymentsPullPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource loyaltyAcrPull 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(registry.id, loyaltyPullPrincipalId, acrPullRoleId)
  scope: registry
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', acrPullRoleId)
    principalId: loyaltyPullPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource customerStatsAcrPull 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(registry.id, customerStatsPullPrincipalId, acrPullRoleId)
  scope: registry
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', acrPullRoleId)
    principalId: customerStatsPullPrincipalId
    principalType: 'ServicePrincipal'
  }
}

output name string = registry.name
output loginServer string = registry.properties.loginServer

