export { startWorker, jsonLogger, silentLogger, supportedLanguages, type RunningWorker, type WorkerLogger, type WorkerOptions } from './worker.ts';
export {
  clipFailMessage,
  createJudgeApiClient,
  JudgeApiRequestError,
  LeaseLostError,
  type JudgeApiClient,
  type JudgeApiClientOptions,
  type LeaseRef,
  type TestcaseResult,
} from './api-client.ts';
export { createTestcaseReporter, type TestcaseReporter, type TestcaseReporterOptions } from './reporter.ts';
