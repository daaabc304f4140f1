// Cosmos DB for NoSQL: Entra-only data access, database and container created here because data-plane
// RBAC cannot create them. Each app identity gets the Built-in Data Contributor on the one container its
// apps use (the worker's, which the relay shares, on orders; the consumers' on customers); the deploying
// user, on the account.
param location string
param tags object
param accountName string
param databaseName string
param containerName string

@allowed([
  'serverless'
  'autoscale'
])
@description('serverless: pay per request unit used, capped in throughput. autoscale: throughput on the container that scales between 10 % and 100 % of autoscaleMaxThroughput, billed by the hour. Fixed when the account is created.')
param capacityMode string = 'serverless'

@minValue(1000)
@maxValue(1000000)
@description('autoscale only: the most RU/s the container may use, in steps of 1000.')
param autoscaleMaxThroughput int = 4000

param workerPrincipalId string

@description('Name of the consumers\' shared container (customer documents and consumer-scoped inbox markers).')
param customersContainerName string = 'customers'

@description('Principal ids of the consumer apps\' identities (loyalty, customer-stats); each gets the Built-in Data Contributor on the customers container.')
param loyaltyPrincipalId string
param customerStatsPrincipalId string

@description('Object id of the deploying user (a person: main.bicep passes it only for principalType User); gets data access so local runs against Azure work. Empty to skip.')
param userPrincipalId string = ''

// Built-in Data Contributor: read, write, query and delete items; no control-plane rights.
var dataContributorRoleId = '00000000-0000-0000-0000-000000000002'

var serverless = capacityMode == 'serverless'

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
  }
}

// Index what is queried, nothing else: every write pays per indexed term. messageId and key: explain's
// cross-partition look-up (c.key = @id OR c.messageId = @id); type: partition-scoped reads by document
// type. The worker, the relay and the consumers query nothing (point reads, batches, change feed).
// Same paths as CosmosContainers.INDEXED_PATHS (a test keeps them in agreement).
var indexingPolicy = {
  indexingMode: 'consistent'
  automatic: true
  includedPaths: [
    {
      path: '/messageId/?'
    }
    {
      path: '/key/?'
    }
    {
      path: '/type/?'
    }
  ]
  excludedPaths: [
    {
      path: '/*'
    }
  ]
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
      indexingPolicy: indexingPolicy
    }
    // One container, so its own throughput rather than the database's shared pool. Serverless accounts
    // reject throughput options.
    options: serverless ? {} : {
      autoscaleSettings: {
        maxThroughput: autoscaleMaxThroughput
      }
    }
  }
}

// The loyalty and customer-stats consumers share it: customer documents by customerId, and each
// consumer's inbox markers (which carry their own ttl, hence TTL on, -1: the worker refuses to start
// with TTL off).
resource customersContainer 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2025-04-15' = {
  parent: database
  // The account creates one container at a time, like the role assignments below.
  dependsOn: [
    container
  ]
  name: customersContainerName
  properties: {
    resource: {
      id: customersContainerName
      partitionKey: {
        paths: [
          '/customerId'
        ]
        kind: 'Hash'
        version: 2
      }
      defaultTtl: -1
      indexingPolicy: indexingPolicy
    }
    options: serverless ? {} : {
      autoscaleSettings: {
        maxThroughput: autoscaleMaxThroughput
      }
    }
  }
}

var dataContributorDefinitionId = '${account.id}/sqlRoleDefinitions/${dataContributorRoleId}'
// Scopes of the app identities' assignments: the container each one's apps read and write.
var ordersScope = '${account.id}/dbs/${databaseName}/colls/${containerName}'
var customersScope = '${account.id}/dbs/${databaseName}/colls/${customersContainerName}'

// The account takes an exclusive lock for each role assignment (and for creating the container), and a
// second request meanwhile fails with 412 PreconditionFailed. So one after the other: containers,
// worker, loyalty, customer-stats, user. Any assignment added here must depend on the one before it.
resource workerDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: account
  dependsOn: [
    customersContainer
  ]
  // The worker and the relay (same identity) use the orders container only.
  name: guid(dataContributorDefinitionId, workerPrincipalId, ordersScope)
  properties: {
    roleDefinitionId: dataContributorDefinitionId
    principalId: workerPrincipalId
    scope: ordersScope
  }
}

resource loyaltyDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: account
  dependsOn: [
    workerDataAccess
  ]
  name: guid(dataContributorDefinitionId, loyaltyPrincipalId, customersScope)
  properties: {
    roleDefinitionId: dataContributorDefinitionId
    principalId: loyaltyPrincipalId
    scope: customersScope
  }
}

resource customerStatsDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: account
  dependsOn: [
    loyaltyDataAccess
  ]
  name: guid(dataContributorDefinitionId, customerStatsPrincipalId, customersScope)
  properties: {
    roleDefinitionId: dataContributorDefinitionId
    principalId: customerStatsPrincipalId
    scope: customersScope
  }
}

// The person running azd: the whole account, for the operator commands on both containers.
resource userDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (!empty(userPrincipalId)) {
  parent: account
  dependsOn: [
    customerStatsDataAccess
  ]
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
output customersContainerName string = customersContainer.name
