export {
  checkerLimits,
  defaultCompileLimits,
  defaultRunOutputBytes,
  findLanguage,
  getLanguage,
  languages,
  problemRunLimits,
  type LanguageDefinition,
} from './table.ts';
export { compile, expandArgv, run, type CompileOptions, type CompileResult, type CompiledProgram, type ProgramRunOptions, type ProgramRunResult } from './compile.ts';
export { maxMessageLines, trimCompilerMessage } from './messages.ts';
