// The payment provider double (io.idemworker.emulator.payments) as its own Container App: its own
// image (azure.yaml service `payments`, the Dockerfile's payments-double target, which runs the
// proof jar's `emulators --only payments`; the worker's image holds no emulator), internal ingress only (reachable
// from apps in the environment, never from the internet), exactly one replica because the double
// keeps its idempotency keys and ledger in memory, and the API key from Key Vault through its own
// identity. No KEDA rule: it serves HTTP, it does not pull from a queue.
param location string
param tags object
param name string
param containerAppsEnvironmentId string

@description('The double\'s image (the Dockerfile\'s payments-double target); empty on the first provision.')
param imageName string = ''

param registryLoginServer string
param paymentsIdentityId string

@description('Key Vault URI (ends in a slash) holding the API key.')
param keyVaultUri string

param apiKeySecretName string

@description('Name of the Key Vault secret the double signs its webhooks with (PAYMENTS_WEBHOOK_SECRET).')
param webhookSecretName string

@description('Where the double delivers its signed webhooks, e.g. https://<api app>/webhooks/payments; empty = it sends none. The api app that serves POST /webhooks/payments is deployed separately.')
param webhookUrl string = ''

@description('Port the double listens on inside the container; the ingress forwards to it.')
param port int = 8082

param cpu string = '0.25'
param memory string = '0.5Gi'

// As in worker-app.bicep: before azd has pushed an image the app runs Microsoft's placeholder,
// which listens on port 80 and knows nothing of our command.
var placeholderImage = 'mcr.microsoft.com/k8se/quickstart:latest'
var usePlaceholder = empty(imageName) || imageName == placeholderImage
var image = usePlaceholder ? placeholderImage : imageName
// The payments-double image's ENTRYPOINT is the JVM with its options; `args` replaces its CMD with
// the port and bind address this app listens on, keeping the options.
var args = [
  'emulators'
  '--only'
  'payments'
  '--payments-port'
  string(port)
  '--payments-bind'
  '0.0.0.0'
]

var keyVaultSecrets = [
  {
    name: 'payments-api-key'
    keyVaultUrl: '${keyVaultUri}secrets/${apiKeySecretName}'
    identity: paymentsIdentityId
  }
  {
    name: 'payments-webhook-secret'
    keyVaultUrl: '${keyVaultUri}secrets/${webhookSecretName}'
    identity: paymentsIdentityId
  }
]

var containerEnv = [
  {
    // Read by `emulators` as the default of --payments-api-key, so the key stays off the command
    // line the platform shows.
    name: 'PAYMENTS_API_KEY'
    secretRef: 'payments-api-key'
  }
  {
    // Read by `emulators` as the defaults of --payments-webhook-secret and --payments-webhook-url
    // (empty = no webhooks).
    name: 'PAYMENTS_WEBHOOK_SECRET'
    secretRef: 'payments-webhook-secret'
  }
  {
    name: 'PAYMENTS_WEBHOOK_URL'
    value: webhookUrl
  }
]

resource app 'Microsoft.App/containerApps@2025-01-01' = {
  name: name
  location: location
  tags: union(tags, {
    'azd-service-name': 'payments'
  })
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${paymentsIdentityId}': {}
    }
  }
  properties: {
    environmentId: containerAppsEnvironmentId
    workloadProfileName: 'Consumption'
    configuration: {
      activeRevisionsMode: 'Single'
      ingress: {
        // Internal: only apps in the same Container Apps environment reach it.
        external: false
        targetPort: usePlaceholder ? 80 : port
        transport: 'http'
        allowInsecure: false
      }
      registries: [
        {
          server: registryLoginServer
          identity: paymentsIdentityId
        }
      ]
      // Key Vault references only with the real image, as in worker-app.bicep: the placeholder needs
      // no key, so the provision that makes this identity's roles reads nothing with them.
      secrets: usePlaceholder ? [] : keyVaultSecrets
    }
    template: {
      containers: [
        {
          name: 'payments'
          image: image
          args: usePlaceholder ? [] : args
          resources: {
            cpu: json(cpu)
            memory: memory
          }
          env: usePlaceholder ? [] : containerEnv
        }
      ]
      scale: {
        minReplicas: 1
        maxReplicas: 1
      }
    }
  }
}

output name string = app.name

@description('The image running, empty while the placeholder runs (azd saves it as the service\'s image).')
output imageName string = usePlaceholder ? '' : imageName
// The internal FQDN (<app>.internal.<environment default domain>); the ingress terminates TLS.
output baseUrl string = 'https://${app.properties.configuration.ingress.fqdn}'
