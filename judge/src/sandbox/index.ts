export type {
  AddFileOptions,
  Calibration,
  ReadOnlyBind,
  RunLimits,
  RunRequest,
  RunResult,
  RunStatus,
  Sandbox,
  SandboxMode,
  SandboxSlot,
} from './types.ts';
export { createSandbox, calibrationFrom, defaultFirstUid, type SandboxOptions } from './sandbox.ts';
export { sandboxOptionsFromEnv } from './config.ts';
export { SandboxUnavailableError, checkRequirements, systemProbe, type RequirementProbe } from './requirements.ts';
export { applyCalibration, decideStatus, splitExitStatus, type RunObservation } from './verdict.ts';
export { buildSandboxTools, type SandboxTools } from './tools.ts';
export { unsafeModeWarning } from './unsafe-driver.ts';
