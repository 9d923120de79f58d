// `@sealbox/he-core/codegen`: a workspace turned into a runnable program for plain node-seal 7
// (JavaScript) or native SEAL (Python). Pure text generation: it never loads node-seal.

export { type CodegenOptions, codeFileName, generateCode } from './generateCode.ts'
export { noiseBudgetStopMessage } from './noiseBudgetStopMessage.ts'
export { generatePython, PYTHON_FILE_NAME, SEAL_PYTHON_VERSION } from './python/generatePython.ts'
