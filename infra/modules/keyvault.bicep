// Key Vault holding the payment provider's API key and its webhook signing secret, the deployment's
// two secrets. RBAC authorization (no access policies): Key Vault Secrets User scoped to one secret
// at a time (the API key: worker and double; the webhook secret: double here, the api app in its
// own module), and the Container Apps reference them by URL through their identity, so each value
// is stored once and never passes through an output.
param location string
param tags object
param name string

@secure()
@minLength(16)
@description('The API key the worker sends and the payments double (or a real provider) accepts. main.parameters.json lets azd generate it once and read it back from this vault on later provisions.')
param paymentsApiKey string

@description('Name of the secret; the apps build its URL from vaultUri and this name.')
param paymentsApiKeySecretName string

@secure()
@minLength(16)
@description('The secret the payment provider signs its webhooks with (HMAC-SHA256); the double signs with it and the receiver of POST /webhooks/payments checks with it. Generated once by azd like the API key.')
param paymentsWebhookSecret string

@description('Name of the webhook secret in the vault.')
param paymentsWebhookSecretName string

param workerPrincipalId string
param paymentsPrincipalId string

@description('Object id of the deploying user; gets Key Vault Secrets User on the key so azd can read it back on the next provision (otherwise azd would generate a new one). Empty to skip.')
param userPrincipalId string = ''

@allowed([
  'User'
  'ServicePrincipal'
])
param userPrincipalType string = 'User'

var secretsUserRoleId = '4633458b-17de-408a-b874-0445c86b69e6'

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 7
    publicNetworkAccess: 'Enabled'
  }
}

resource paymentsApiKeySecret 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: paymentsApiKeySecretName
  properties: {
    value: paymentsApiKey
    contentType: 'text/plain'
  }
}

resource paymentsWebhookSecretItem 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {
  parent: vault
  name: paymentsWebhookSecretName
  properties: {
    value: paymentsWebhookSecret
    contentType: 'text/plain'
  }
}

// The receiver of the webhooks (the api app, POST /webhooks/payments) reads the secret too; its
// identity is made in api-app.bicep, which assigns its role on this secret there.
resource paymentsWebhookSecretUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(paymentsWebhookSecretItem.id, paymentsPrincipalId, secretsUserRoleId)
  scope: paymentsWebhookSecretItem
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: paymentsPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource userWebhookSecretUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(paymentsWebhookSecretItem.id, userPrincipalId, secretsUserRoleId)
  scope: paymentsWebhookSecretItem
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}

resource workerSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(paymentsApiKeySecret.id, workerPrincipalId, secretsUserRoleId)
  scope: paymentsApiKeySecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: workerPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource paymentsSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(paymentsApiKeySecret.id, paymentsPrincipalId, secretsUserRoleId)
  scope: paymentsApiKeySecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: paymentsPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource userSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(userPrincipalId)) {
  name: guid(paymentsApiKeySecret.id, userPrincipalId, secretsUserRoleId)
  scope: paymentsApiKeySecret
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)
    principalId: userPrincipalId
    principalType: userPrincipalType
  }
}

output name string = vault.name
// Ends in a slash; an app's reference is this, 'secrets/', and the secret's name (no version, so the
// apps follow a rotated value on their next revision or restart).
output vaultUri string = vault.properties.vaultUri
