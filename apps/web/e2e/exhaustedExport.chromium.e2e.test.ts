import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { expect, inject } from 'vitest'
import { rawIdentifiers } from '../src/ui/rawIdentifiers.ts'
import { WEB_ROOT } from './support/buildApp.ts'
import { exhaustedWorkspace } from './support/exhaustedWorkspace.ts'
import { openPanel } from './support/openPanel.ts'
import { test } from './support/sandboxTest.ts'
import { venvPython } from './support/venvPython.ts'
import { openWorkspaceLink, workspaceLink } from './support/workspaceLink.ts'

/*
 * The Code panel's promise for a pipeline whose noise budget runs out, against what each
 * export really does: the .mts and .mjs programs under this Node, the Python program
 * under the bench's seal-python wheel.
 */

const run = promisify(execFile)

const EXHAUSTED = exhaustedWorkspace([1, 2, 3, 4, 5, 6, 7, 8])

interface Exit {
  code: number
  stdout: string
  stderr: string
}

async function exitOf(command: string, args: string[], cwd: string): Promise<Exit> {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return run(command, args, { cwd, env, timeout: 180_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Exit) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  )
}

test('says before download that an exhausted pipeline stops at step 5, and every export does exactly that', async ({
  sandbox: { page, errors },
}) => {
  const tmp = await mkdtemp(join(WEB_ROOT, '.e2e-tmp-'))
  try {
    await openWorkspaceLink(page, workspaceLink(inject('sandboxUrl'), EXHAUSTED), 5)
    const step5 = page.getByTestId('step-5')
    await expect(step5.locator('[data-error-code]').getAttribute('data-error-code')).resolves.toBe(
      'NOISE_BUDGET_EXHAUSTED',
    )
    // Look at the garbage: the Code panel must still not promise it.
    await page.getByRole('button', { name: 'Decrypt anyway (step 5)' }).click()
    await step5.getByTestId('garbage').waitFor({ timeout: 60_000 })

    await openPanel(page, 'Code')
    const stops = page.getByTestId('program-stops')
    await expect(stops.textContent()).resolves.toMatch(/^It stops at step 5 and prints nothing/)
    await expect(page.getByTestId('expected-output').count()).resolves.toBe(0)
    const sentence = (await page.getByTestId('expected-stop').textContent()) ?? ''
    // The step named as the step menu names it, as the step card says it.
    expect(sentence).toBe(
      "Step 5 (Multiply): 'r5' has no noise budget left, so it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications",
    )
    expect(rawIdentifiers((await stops.textContent()) ?? '')).toEqual([])
    await openPanel(page, 'Functions')
    await expect(step5.locator('[data-error-code]').textContent()).resolves.toBe(`Stopped here. ${sentence}`)
    await openPanel(page, 'Code')

    const exports = [
      { language: 'ts', file: 'sealbox-workspace.mts' },
      { language: 'js', file: 'sealbox-workspace.mjs' },
      { language: 'python', file: 'sealbox_workspace.py' },
    ] as const
    for (const { language, file } of exports) {
      await page.getByTestId(`language-${language}`).check({ force: true })
      await page.getByRole('heading', { name: file }).waitFor()
      await expect(page.getByTestId('expected-stop').textContent()).resolves.toBe(sentence)
      const path = join(tmp, file)
      await writeFile(path, (await page.getByTestId('generated-code').textContent()) ?? '')
      let exit: Exit
      if (language === 'python') {
        const python = await venvPython()
        if (!python) {
          console.warn('python3 is missing: the Python export was not run')
          continue
        }
        exit = await exitOf(python, [path], tmp)
      } else {
        exit = await exitOf(process.execPath, [path], tmp)
      }
      // Nothing printed, the panel's sentence alone on stderr (no stack trace), exit code 1.
      expect({ file, ...exit }).toEqual({ file, code: 1, stdout: '', stderr: `${sentence}\n` })
    }

    // The browser module exports main(print): it throws what the panel says, with the sentence.
    await page.getByTestId('language-js').check({ force: true })
    await page.getByTestId('flavour-browser').check({ force: true })
    await expect(page.getByTestId('expected-stop').textContent()).resolves.toBe(sentence)
    const promised = (await stops.textContent()) ?? ''
    expect(promised).toMatch(/main\(print\) throws an Error named NoiseBudgetExhausted/)
    expect(promised).not.toMatch(/stderr|exit/)
    const module = join(tmp, 'sealbox-workspace.browser.mjs')
    await writeFile(module, (await page.getByTestId('generated-code').textContent()) ?? '')
    const driver = join(tmp, 'drive.mjs')
    await writeFile(
      driver,
      [
        `const { main } = await import(${JSON.stringify(`./${basename(module)}`)})`,
        'try {',
        '  await main((line) => console.log(line))',
        '} catch (error) {',
        "  console.error(error.name + ': ' + error.message)",
        '  process.exit(3)',
        '}',
      ].join('\n'),
    )
    expect(await exitOf(process.execPath, [driver], tmp)).toEqual({
      code: 3,
      stdout: '',
      stderr: `NoiseBudgetExhausted: ${sentence}\n`,
    })
    expect(errors).toEqual([])
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
})
