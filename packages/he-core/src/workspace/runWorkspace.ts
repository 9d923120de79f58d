import type { Ciphertext, GaloisKeys, Plaintext, RelinKeys } from 'node-seal/throws'
import { decodeBatch, encodeBatch } from '../codecs/batchCodec.ts'
import { decodeCkks, encodeCkks } from '../codecs/ckksCodec.ts'
import { decrypt, encrypt, encryptSymmetric } from '../crypto/encrypt.ts'
import { sealCall } from '../errors/toHeError.ts'
import { KeySet } from '../keys/KeySet.ts'
import { type ContextCache, sharedContextCache } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { ResolvedParams } from '../params/ParamsSpec.ts'
import type { ProgramAnalysis } from '../program/analyzeProgram.ts'
import type { ValueKind } from '../program/ProgramSpec.ts'
import { runProgram, type StepReport } from '../program/runProgram.ts'
import { SealScope } from '../scope/SealScope.ts'
import { formatOutputLine } from './formatOutput.ts'
import {
  type ParsedWorkspace,
  type ParseWorkspaceOptions,
  parseWorkspace,
  type WorkspaceKeys,
} from './parseWorkspace.ts'

/** Options for `runWorkspace`. */
export interface RunWorkspaceOptions extends ParseWorkspaceOptions {
  /** Where the context comes from (default: the thread's shared cache). */
  cache?: ContextCache
  /** BFV/BGV: measure the noise budget after each step and stop at 0 (default true). */
  checkNoise?: boolean
}

/** One printed output. */
export interface WorkspaceOutput {
  name: string
  kind: ValueKind
  /** Every decoded slot: bigints (BFV/BGV, centred mod t) or numbers (CKKS). */
  values: bigint[] | number[]
  /** The printed line, e.g. `r = [1, 4, 9, ...]`. */
  line: string
}

/** What running a workspace did. */
export interface WorkspaceRun {
  /** Exactly the lines a generated program prints. */
  lines: string[]
  outputs: WorkspaceOutput[]
  steps: StepReport[]
  params: ResolvedParams
  analysis: ProgramAnalysis
  keys: WorkspaceKeys
}

/**
 * Runs a workspace end to end in he-core: builds (or reuses) the context, generates
 * the keys it asks for, encodes and encrypts the variables, runs the pipeline, then
 * decrypts, decodes and formats the printed outputs. Every SEAL object is deleted
 * before it returns, on success and on error.
 */
export async function runWorkspace(input: unknown, options: RunWorkspaceOptions = {}): Promise<WorkspaceRun> {
  const parsed = parseWorkspace(input, options)
  const ctx = await (options.cache ?? sharedContextCache()).get(parsed.params, { allowInsecure: options.allowInsecure })
  return runParsedWorkspace(ctx, parsed, options.checkNoise ?? true)
}

function runParsedWorkspace(ctx: HeContext, parsed: ParsedWorkspace, checkNoise: boolean): WorkspaceRun {
  const { workspace, keys: keyOptions } = parsed
  using keys = KeySet.generate(ctx, { relin: keyOptions.relin, galois: keyOptions.galois })
  using scope = new SealScope()
  let relinKeys: RelinKeys | undefined = keys.relinKeys
  let galoisKeys: GaloisKeys | undefined = keys.galoisKeys
  if (keyOptions.seeded) {
    // Evaluate with keys that went through their seeded (half-size) form, as a server would.
    if (relinKeys) {
      const bytes = keys.serializeRelinKeys('zstd', true)
      relinKeys = scope.track(new ctx.seal.RelinKeys())
      const target = relinKeys
      sealCall('load seeded relin keys', () => target.loadFromArray(ctx.context, bytes))
    }
    if (galoisKeys) {
      const bytes = keys.serializeGaloisKeys('zstd', true)
      galoisKeys = scope.track(new ctx.seal.GaloisKeys())
      const target = galoisKeys
      sealCall('load seeded Galois keys', () => target.loadFromArray(ctx.context, bytes))
    }
  }
  const ckks = ctx.scheme === 'ckks'
  const inputs: Record<string, Ciphertext | Plaintext> = {}
  for (const variable of workspace.variables) {
    const plaintext = ckks
      ? encodeCkks(ctx, variable.values as number[], scope, { scale: parsed.scales[variable.name] })
      : encodeBatch(ctx, variable.values, scope)
    if (variable.kind === 'plaintext') inputs[variable.name] = plaintext
    else {
      inputs[variable.name] =
        workspace.encryption === 'symmetric'
          ? encryptSymmetric(keys, plaintext, scope)
          : encrypt(keys, plaintext, scope)
      scope.free(plaintext)
    }
  }
  const result = runProgram(ctx, parsed.program, {
    inputs,
    relinKeys,
    galoisKeys,
    decryptor: checkNoise && !ckks ? keys.decryptor : undefined,
  })
  for (const value of Object.values(result.outputs)) scope.track(value)
  const format = { slots: workspace.display.slots, decimals: ckks ? workspace.display.decimals : undefined }
  const outputs = workspace.print.map((name): WorkspaceOutput => {
    const value = result.outputs[name] as Ciphertext | Plaintext
    const kind = parsed.analysis.kinds[name] ?? 'ciphertext'
    const plaintext = kind === 'ciphertext' ? decrypt(keys, value as Ciphertext, scope) : (value as Plaintext)
    const values = ckks ? decodeCkks(ctx, plaintext) : decodeBatch(ctx, plaintext)
    return { name, kind, values, line: formatOutputLine(name, values, format) }
  })
  return {
    lines: outputs.map((o) => o.line),
    outputs,
    steps: result.steps,
    params: parsed.params,
    analysis: parsed.analysis,
    keys: keyOptions,
  }
}
