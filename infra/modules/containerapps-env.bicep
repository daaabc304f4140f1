// Container Apps environment (workload-profiles type, Consumption profile). Logs go to Log Analytics
// through Azure Monitor (a diagnostic setting), so no workspace key is read or stored: the
// 'log-analytics' destination would need the workspace's shared key in the template.
param location string
param tags object
param name string
param logAnalyticsWorkspaceName string

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2025-07-01' existing = {
  name: logAnalyticsWorkspaceName
}

resource environment 'Microsoft.App/managedEnvironments@2025-01-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    appLogsConfiguration: {
      destination: 'azure-monitor'
    }
    workloadProfiles: [
      {
        name: 'Consumption'
        workloadProfileType: 'Consumption'
      }
    ]
    zoneRedundant: false
  }
}

// Console and system logs of every app in the environment (ContainerAppConsoleLogs, ContainerAppSystemLogs).
resource logs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'logs-to-log-analytics'
  scope: environment
  properties: {
    workspaceId: logAnalytics.id
    logs: [
      {
        categoryGroup: 'allLogs'
        enabled: true
      }
    ]
  }
}

output id string = environment.id
output name string = environment.name
