// Alert rules for operating the worker, and the action group that notifies. Log alerts query the
// OpenTelemetry metrics in Application Insights (customMetrics: name = the instrument's name,
// customDimensions = its attributes; a test checks every name here against the telemetry code) and
// the Container Apps system logs in Log Analytics; the dead-letter alert uses Service Bus's own
// DeadletteredMessages metric, so messages the broker dead-letters itself (delivery count, expiry)
// count too. Without alertEmail the rules still fire (visible under Alerts) but notify nobody.
param location string
param tags object
param applicationInsightsName string
param logAnalyticsWorkspaceName string
param serviceBusNamespaceName string
param workerAppName string

@description('E-mail address for alert notifications; empty = no action group, no notifications.')
param alertEmail string = ''

@minValue(1)
@description('Relay lag (oldest unpublished outbox event, seconds) above which the relay alert fires.')
param relayLagThresholdSeconds int = 300

@minValue(-1)
@description('The Log Analytics workspace\'s daily cap in GB, as monitoring.bicep sets it; -1 is none. With a cap, a rule fires when it is reached.')
param logDailyCapGb int = -1

@minValue(1)
@maxValue(100)
@description('Duplicate share (percent of outcomes) in the last 15 minutes above which, if also at least twice the share of the 45 minutes before, the duplicate-rate alert fires.')
param duplicateRatePercent int = 5

@minValue(1)
@description('Fewest outcomes in the last 15 minutes before the duplicate rate is judged (a handful of messages says nothing).')
param duplicateRateMinMessages int = 50

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2025-07-01' existing = {
  name: logAnalyticsWorkspaceName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

var notify = !empty(alertEmail)

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = if (notify) {
  name: 'ag-idemworker-${uniqueString(resourceGroup().id)}'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'idemworker'
    enabled: true
    emailReceivers: [
      {
        name: 'operator'
        emailAddress: alertEmail
        useCommonAlertSchema: true
      }
    ]
  }
}

var actions = {
  actionGroups: notify ? [
    actionGroup.id
  ] : []
}

// Any IdempotencyConflict: a producer reused a MessageId for other content (a bug upstream).
resource idempotencyConflict 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-idempotency-conflict-${workerAppName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'idemworker: IdempotencyConflict'
    description: 'A message was dead-lettered as IdempotencyConflict: its key was already used for other content. Find it with: idemworker dlq list --reason IdempotencyConflict, then idemworker explain <messageId>.'
    severity: 1
    enabled: true
    scopes: [
      applicationInsights.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    criteria: {
      allOf: [
        {
          query: 'customMetrics | where name == "idemworker.messages.outcomes" and cloud_RoleName == "idemworker" | where tostring(customDimensions["outcome"]) == "dead_lettered" and tostring(customDimensions["reason"]) == "IdempotencyConflict" | summarize conflicts = sum(valueSum)'
          timeAggregation: 'Total'
          metricMeasureColumn: 'conflicts'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: actions
  }
}

// Dead-letter queue depth above zero, per queue or subscription (EntityName), from Service Bus itself.
resource deadLettered 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-dead-lettered-${serviceBusNamespaceName}'
  location: 'global'
  tags: tags
  properties: {
    description: 'Messages lie in a dead-letter queue. Count them by reason with: idemworker dlq; list with: idemworker dlq list --reason R.'
    severity: 2
    enabled: true
    scopes: [
      serviceBus.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'DeadletteredMessages'
          metricNamespace: 'Microsoft.ServiceBus/namespaces'
          metricName: 'DeadletteredMessages'
          dimensions: [
            {
              name: 'EntityName'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          operator: 'GreaterThan'
          threshold: 0
          timeAggregation: 'Maximum'
        }
      ]
    }
    autoMitigate: true
    actions: notify ? [
      {
        actionGroupId: actionGroup.id
      }
    ] : []
  }
}

// Readiness failing in each of 5 consecutive minutes: the worker is paused (misconfiguration, a long
// store outage) or cannot start. The probe failures are in the environment's system logs.
resource readiness 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-readiness-${workerAppName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'idemworker: not ready for 5 minutes'
    description: 'The worker\'s readiness probe (/health/ready) has failed at least 12 times in the last 5 minutes (2 minutes or more of failures): it is paused (401/403, missing container, long store outage) or cannot start. Its log says why (ERROR lines).'
    severity: 1
    enabled: true
    scopes: [
      logAnalytics.id
    ]
    evaluationFrequency: 'PT1M'
    windowSize: 'PT5M'
    criteria: {
      allOf: [
        {
          // `has` matches whole terms ("fail" never matches "failed", "Probe" never "ProbeFailed"), so
          // the query matches substrings, case-insensitively. The platform folds repeated events into
          // one row with a Count and may write it less than once a minute, so it sums Count over a
          // 5-minute window instead of asking for a row in each of 5 one-minute periods: the probe
          // fails every 10 s, about 30 times in 5 minutes, and 12 failures means at least 2 minutes.
          query: 'ContainerAppSystemLogs | where ContainerAppName == "${workerAppName}" | where Log contains "readiness" and (Log contains "fail" or Reason contains "probe" or Reason contains "unhealthy") | summarize failures = sum(iff(isnull(Count) or Count < 1, 1, Count))'
          timeAggregation: 'Total'
          metricMeasureColumn: 'failures'
          operator: 'GreaterThanOrEqual'
          threshold: 12
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: actions
  }
}

// The outbox relay falling behind: its lag gauge (seconds since the oldest pending event) too high.
resource relayLag 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-relay-lag-${workerAppName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'idemworker: outbox relay lag above ${relayLagThresholdSeconds} s'
    description: 'Outbox events wait longer than the threshold to be published. idemworker explain <orderId> shows whether an order\'s events were published.'
    severity: 2
    enabled: true
    scopes: [
      applicationInsights.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    criteria: {
      allOf: [
        {
          query: 'customMetrics | where name == "idemworker.relay.lag" and cloud_RoleName == "idemworker-relay" | summarize lag = max(valueMax)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'lag'
          operator: 'GreaterThan'
          threshold: relayLagThresholdSeconds
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: actions
  }
}

// A rising duplicate rate, split by where the duplicates came from (the outcome metric's
// duplicate_source): each source has its own cause and fix (docs/operations.md, "Duplicates by
// source"). Judged per source on the last 15 minutes against the 45 before.
resource duplicateRate 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-duplicate-rate-${workerAppName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'idemworker: duplicate rate rising'
    description: 'More than ${duplicateRatePercent}% of outcomes in the last 15 minutes were duplicates from one source, at least twice its share of the 45 minutes before. The source dimension says which: redelivery (crashes, lost locks: lock duration, replica health, settlements.failed), resend (producer retries after the duplicate-detection window), concurrent (copies in flight at once), resubmit (dlq resubmit of work already done), republish (the relay re-published). docs/operations.md says what to change for each.'
    severity: 3
    enabled: true
    scopes: [
      applicationInsights.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'let outcomes = customMetrics | where name == "idemworker.messages.outcomes" and cloud_RoleName == "idemworker" | extend recent = timestamp > ago(15m); let totals = outcomes | summarize recentAll = sumif(valueSum, recent), earlierAll = sumif(valueSum, not(recent)) | extend joinKey = 1; outcomes | where tostring(customDimensions["outcome"]) == "duplicate" | extend source = tostring(customDimensions["duplicate_source"]) | summarize recentDuplicates = sumif(valueSum, recent), earlierDuplicates = sumif(valueSum, not(recent)) by source | extend joinKey = 1 | join kind=inner totals on joinKey | extend recentRate = iff(recentAll > 0, 100.0 * recentDuplicates / recentAll, 0.0), earlierRate = iff(earlierAll > 0, 100.0 * earlierDuplicates / earlierAll, 0.0) | where recentAll >= ${duplicateRateMinMessages} and recentRate > ${duplicateRatePercent} and recentRate >= 2 * earlierRate | project source, rate = recentRate'
          dimensions: [
            {
              name: 'source'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'rate'
          operator: 'GreaterThan'
          threshold: duplicateRatePercent
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: actions
  }
}

output actionGroupId string = notify ? actionGroup.id : ''
output alertRuleNames array = [
  idempotencyConflict.name
  deadLettered.name
  readiness.name
  relayLag.name
  duplicateRate.name
]

// The workspace's daily cap reached: it ingests nothing more until its reset hour, so the readiness,
// IdempotencyConflict, relay-lag and duplicate-rate rules (which read the workspace, Application
// Insights' telemetry included) see nothing until then. The workspace writes the event to its
// Operation table (_LogOperation), which the cap does not stop. Only when a cap is set.
resource logCapReached 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = if (logDailyCapGb > 0) {
  name: 'alert-log-cap-${logAnalyticsWorkspaceName}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'idemworker: Log Analytics daily cap reached'
    description: 'The workspace reached its daily cap (logDailyCapGb) and stopped ingesting until its daily reset: the log and telemetry alerts are blind until then. Raise or remove the cap (azd env set LOG_DAILY_CAP_GB -1; azd provision) and find the noisy source.'
    severity: 1
    enabled: true
    scopes: [
      logAnalytics.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: '_LogOperation | where Category =~ "Ingestion" | where Detail contains "OverQuota" | summarize events = count()'
          timeAggregation: 'Total'
          metricMeasureColumn: 'events'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: false
    actions: actions
  }
}
