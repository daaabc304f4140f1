// Azure Monitor workbook "idemworker operations": outcome mix, duplicate rate by message type,
// Cosmos DB round trips and request units per operation, dead-letter queue depth (Service Bus's own
// metric) and the outbox relay's lag. The workbook itself is workbook.json; its placeholders
// __APP_INSIGHTS_ID__ and __SERVICE_BUS_ID__ are replaced by the resource ids here. A test checks
// every metric and dimension name it queries against the telemetry code.
param location string
param tags object
param applicationInsightsName string
param serviceBusNamespaceName string

@description('Name shown in the portal.')
param displayName string = 'idemworker operations'

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

var serializedData = replace(
  replace(loadTextContent('workbook.json'), '__APP_INSIGHTS_ID__', applicationInsights.id),
  '__SERVICE_BUS_ID__',
  serviceBus.id
)

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  // A workbook's name must be a GUID; this one is stable per resource group, so a re-run updates it.
  name: guid(resourceGroup().id, 'idemworker-operations-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: displayName
    category: 'workbook'
    version: 'Notebook/1.0'
    sourceId: applicationInsights.id
    serializedData: serializedData
  }
}

output workbookId string = workbook.id
