// Cosmos DB for NoSQL: Entra-only data access, database and container created here because data-plane
// RBAC cannot create them. The worker identity and the deploying user get the Built-in Data Contributor.
param location string
param tags object
param accountName string
param databaseName string
param containerName string

@description('Serverless (pay per request units used). false gives provisioned throughput on the database.')
param serverless bool = true

@minValue(400)
@description('Database throughput in RU/s when serverless is false.')
param provisionedThroughput int = 400

param workerPrincipalId string

@description('Object id of the deploying user; gets data access so local runs against Azure work. Empty to skip.')
param userPrincipalId string = ''

// Built-in Data Contributor: read, write, query and delete items; no control-plane rights.
var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'

resource account 'Microsoft.DocumentDB/databaseAccounts@2025-04-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    capabilities: serverless ? [
      {
        name: 'EnableServerless'
      }
    ] : []
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: 'Enabled'
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2025-04-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
    // Serverless accounts reject throughput options.
    options: serverless ? {} : {
      throughput: provisionedThroughput
    }
  }
}

resource container 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2025-04-15' = {
  parent: database
  name: containerName
  properties: {
    resource: {
      id: containerName
      partitionKey: {
        paths: [
          '/orderId'
        ]
        kind: 'Hash'
        version: 2
      }
      // -1: TTL is on but nothing expires unless an item carries its own ttl (inbox markers do).
      defaultTtl: -1
      indexingPolicy: {
        indexingMode: 'consistent'
        automatic: true
        includedPaths: [
          {
            path: '/*'
          }
        ]
        excludedPaths: [
          {
            path: '/"_etag"/?'
          }
        ]
      }
    }
  }
}

var dataContributorDefinitionId = '${account.id}/sqlRoleDefinitions/${dataContributorRoleId}'

resource workerDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: account
  name: guid(dataContributorDefinitionId, workerPrincipalId, account.id)
  properties: {
    roleDefinitionId: dataContributorDefinitionId
    principalId: workerPrincipalId
    scope: account.id
  }
}

resource userDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (!empty(userPrincipalId)) {
  parent: account
  name: guid(dataContributorDefinitionId, userPrincipalId, account.id)
  properties: {
    roleDefinitionId: dataContributorDefinitionId
    principalId: userPrincipalId
    scope: account.id
  }
}

output accountName string = account.name
output endpoint string = account.properties.documentEndpoint
output databaseName string = database.name
output containerName string = container.name
