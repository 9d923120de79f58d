// The text of .tools/bin/node, the Node that runs sealbox (deploy/systemd/sealbox.service starts it).
// Plain JavaScript with no dependencies: scripts/sealbox.mjs imports it on a fresh host's Node 20.
import { relative } from 'node:path'

/**
 * A shell wrapper that runs `nodeBin`. A Node inside `toolsDir` (the one the bootstrap
 * fetched) is named relative to the wrapper's own real location, so a build copied or
 * moved elsewhere (`cp -a /opt/sealbox /srv/sealbox`, an image layer) still starts; a
 * system Node outside it keeps its absolute path. Not a symlink: a checkout whose .tools
 * is another checkout's (a git worktree) may still run an older bootstrap that rewrites
 * this file in place, which through a symlink would overwrite the Node binary itself.
 */
export function nodeShimText(nodeBin, toolsDir) {
  const inside = relative(toolsDir, nodeBin)
  if (inside.startsWith('..') || inside.startsWith('/')) return `#!/bin/sh\nexec "${nodeBin}" "$@"\n`
  return [
    '#!/bin/sh',
    '# Node 24 fetched by the bootstrap into .tools/, found relative to this file: a copied build still runs.',
    'here=$(dirname "$(readlink -f "$0")")',
    `exec "$here/../${inside}" "$@"`,
    '',
  ].join('\n')
}
