/** The jq engine: compile once, run many times. */
export { compileJq, errorMessage, builtinNames, firstOutputDepth } from "./program.js";
export { REWRITER_NATIVES } from "./natives-rewriter.js";
export { compileErrorText } from "./compile-report.js";
export type { CompileOptions, JqProgram, RunOptions, RunResult } from "./program.js";
export { formatJson, printCompact, formatNumber, jsonText } from "./print.js";
export { keysOf as jqKeys, storeAt as storeKeyAt, withoutKeyAt } from "./key-order.js";
export type { FormatOptions } from "./print.js";
export { parseJsonSeq, fromJson } from "./json-parse.js";
export { plainJson } from "./litnum.js";
export { compare as jqCompare, equals as jqEquals, typeOf as jqType, BUDGET_MESSAGE } from "./values.js";
export { REGEX_MAX_INPUT } from "./regex.js";
export { recordModules, parseDataModule, ModuleLoadError } from "./module-provider.js";
export type { ModuleProvider, ModuleRequest, FoundModule } from "./module-provider.js";
export { Reader as JsonReader } from "./json-parse.js";
export { JqError } from "./values.js";
