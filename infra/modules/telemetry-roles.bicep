// Lets the worker identity publish telemetry with an Entra token (needed if the Application Insights
// resource has local auth disabled; harmless otherwise).
param applicationInsightsName string
param workerPrincipalId string

@description('The consumer apps\' identities (loyalty, customer-stats), which publish the same telemetry.')
param loyaltyPrincipalId string
param customerStatsPrincipalId string

var monitoringMetricsPublisherRoleId = '3913510d-42f4-4e42-8a64-420c390055eb'

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource publisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, workerPrincipalId, monitoringMetricsPublisherRoleId)
  scope: applicationInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisherRoleId)
    principalId: workerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource loyaltyPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, loyaltyPrincipalId, monitoringMetricsPublisherRoleId)
  scope: applicationInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisherRoleId)
    principalId: loyaltyPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource customerStatsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, customerStatsPrincipalId, monitoringMetricsPublisherRoleId)
  scope: applicationInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisherRoleId)
    principalId: customerStatsPrincipalId
    principalType: 'ServicePrincipal'
  }
}
