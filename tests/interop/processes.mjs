// The child processes the kafkajs suites run: `kacl serve` through the shared Python harness
// (`python harness.py serve`, which prints the listener addresses as one JSON line and stops
// the server when our end of its stdin closes, so a crashed test run leaves nothing behind),
// and the test OpenID provider (`python oidc_issuer.py serve`, the same contract).

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const HERE = path.dirname(fileURLToPath(import.meta.url))

// Spawns `python script args...` and resolves with its first stdout line, parsed as JSON.
async function startPython (script, args) {
  const python = process.env.KACL_PYTHON || 'python3'
  const child = spawn(python, [path.join(HERE, script), ...args], {
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${script} exited with code ${code} before it was ready (its message is above)`)
  })
  const firstLine = once(createInterface({ input: child.stdout }), 'line').then(([line]) => line)
  const line = await Promise.race([firstLine, exited])
  exited.catch(() => {}) // from here on, an exit is the expected end
  return { ...JSON.parse(line), child }
}

// `extra`: server properties as KEY=VALUE strings.
export async function startServer (extra = []) {
  return startPython('harness.py', ['serve', ...extra])
}

// A test OpenID provider (`args`: `--client ID:SECRET`, `--user NAME:PASSWORD`, `--alg ES256`).
export async function startIssuer (args = []) {
  return startPython('oidc_issuer.py', ['serve', ...args])
}

// Stops a server or an issuer by closing its stdin.
export async function stopServer (server) {
  const { child } = server
  if (child.exitCode === null && child.signalCode === null) {
    const exit = once(child, 'exit')
    child.stdin.end()
    await exit
  }
}

export function logTail (server, lines = 60) {
  try {
    return readFileSync(server.log, 'utf8').split('\n').slice(-lines).map(l => `  | ${l}`).join('\n')
  } catch {
    return '  | (no log)'
  }
}
