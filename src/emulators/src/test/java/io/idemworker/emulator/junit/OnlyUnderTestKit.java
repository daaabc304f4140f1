package io.idemworker.emulator.junit;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a scenario class only when {@link EmulatorsExtensionTest} launches it through JUnit's engine
 * test kit (which sets the configuration parameter), never in the build's own discovery.
 */
final class OnlyUnderTestKit implements ExecutionCondition {
  static final String PARAMETER = "idemworker.kit.scenarios";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return context.getConfigurationParameter(PARAMETER).isPresent()
        ? ConditionEvaluationResult.enabled("launched by the engine test kit")
        : ConditionEvaluationResult.disabled("a scenario for EmulatorsExtensionTest");
  }
}
