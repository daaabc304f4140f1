// Log Analytics (Container Apps console and system logs) and workspace-based Application Insights.
param location string
param tags object
param logAnalyticsName string
param applicationInsightsName string

@minValue(30)
@description('Days of log retention; 30 is included in the ingestion price.')
param retentionInDays int = 30

@minValue(-1)
@description('Daily ingestion cap in GB; -1 (the default) is none. When a cap is reached the workspace stops ingesting until its daily reset, which silences every alert that reads logs or telemetry (all but the dead-letter one) exactly when load makes them matter; alerts.bicep warns when it happens.')
param dailyQuotaGb int = -1

@description('true accepts telemetry only with an Entra token (Monitoring Metrics Publisher); needs the exporter to be given a credential, so off by default.')
param applicationInsightsDisableLocalAuth bool = false

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2025-07-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    workspaceCapping: {
      dailyQuotaGb: dailyQuotaGb
    }
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'other'
  properties: {
    Application_Type: 'other'
    WorkspaceResourceId: logAnalytics.id
    DisableLocalAuth: applicationInsightsDisableLocalAuth
  }
}

output logAnalyticsWorkspaceName string = logAnalytics.name
output logAnalyticsWorkspaceId string = logAnalytics.id
output applicationInsightsName string = applicationInsights.name
