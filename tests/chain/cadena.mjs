// A local chain for the tests: anvil (chain id 84532) running Circle's FiatToken v2.2 behind
// its FiatTokenProxy at Base Sepolia USDC's own address, initialized like Base Sepolia's USDC
// (EIP-712 domain "USDC" / "2"), with USDC minted to the buyers.
//
//   node cadena.mjs --json FILE [--port N] [--block-time S | --no-mining] [--buyers N]
//                   [--usdc N] [--exit-on-stdin-close] [--anvil-log FILE]
//
//   --json FILE             where to write the chain's description (see README.md)
//   --port N                anvil's port on 127.0.0.1 (default 0: any free port)
//   --block-time S          after the setup, mine a block every S seconds (like Base: 2)
//   --no-mining             after the setup, mine nothing until evm_mine (automine off)
//   --buyers N              how many buyers get USDC (default 3: accounts 0, 2 and 3, then 10…)
//   --usdc N                whole USDC minted to each buyer (default 10000)
//   --exit-on-stdin-close   stop anvil and exit when standard input closes (the parent died)
//   --anvil-log FILE        anvil's own log (default: discarded)
//   --safe                  also deploy Safe 1.5.0 (@safe-global/safe-smart-account's compiled
//                           Safe, SafeProxyFactory and CompatibilityFallbackHandler), for smart
//                           wallets' purchases (ERC-1271, ERC-6492)
//
// Prints "listo" once the JSON is written and keeps anvil running until SIGTERM or SIGINT
// (then stops anvil and exits). The setup always runs with automine on; the mining mode asked
// for is set at the end, so a chain with 2 s blocks still starts in well under a second once
// the contracts are compiled (compilar.mjs caches them).

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { parseArgs } from 'node:util'

import {
  concat,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  hashDomain,
  keccak256,
  pad,
  toHex,
} from 'viem'
import { HDKey, hdKeyToAccount } from 'viem/accounts'
import { mnemonicToSeedSync } from '@scure/bip39'

import { compiled } from './compilar.mjs'

const require = createRequire(import.meta.url)

export const CHAIN_ID = 84532
export const NETWORK = `eip155:${CHAIN_ID}`
/** Base Sepolia's USDC (a FiatTokenProxy in front of FiatTokenV2_2). */
export const USDC = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e')
/** Base Sepolia USDC's DOMAIN_SEPARATOR() as the live contract answers it. */
export const BASE_SEPOLIA_DOMAIN_SEPARATOR = '0x71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818'
/** Anvil's (and Hardhat's) standard development mnemonic: public keys for local use only. */
export const MNEMONIC = 'test test test test test test test test test test test junk'
/** content/servicio.toml's `pagar_a_evm`: Anvil account 1. */
export const PAY_TO_INDEX = 1

// Account roles by index of the standard mnemonic. Buyers get USDC; every account has
// anvil's 10,000 ETH for gas. The payTo holds ETH only, so its USDC balance is what sales paid.
const ROLES = [
  { index: 0, role: 'buyer' },
  { index: 1, role: 'pay_to' },
  { index: 2, role: 'buyer' },
  { index: 3, role: 'buyer' },
  { index: 4, role: 'settler' },
  { index: 5, role: 'independent_settler' },
  { index: 6, role: 'sender' },
  { index: 7, role: 'proxy_admin' },
  { index: 8, role: 'issuer' },
  { index: 9, role: 'lost_and_found' },
]
const FIXED_BUYERS = ROLES.filter((r) => r.role === 'buyer').map((r) => r.index)

// The zeppelinos slots of AdminUpgradeabilityProxy (the contract asserts these equalities).
const ADMIN_SLOT = keccak256(toHex('org.zeppelinos.proxy.admin'))
const IMPLEMENTATION_SLOT = keccak256(toHex('org.zeppelinos.proxy.implementation'))

function die(message) {
  process.stderr.write(`cadena: ${message}\n`)
  process.exit(1)
}

function options() {
  const { values } = parseArgs({
    options: {
      json: { type: 'string' },
      port: { type: 'string', default: '0' },
      'block-time': { type: 'string' },
      'no-mining': { type: 'boolean', default: false },
      buyers: { type: 'string', default: String(FIXED_BUYERS.length) },
      usdc: { type: 'string', default: '10000' },
      'exit-on-stdin-close': { type: 'boolean', default: false },
      'anvil-log': { type: 'string' },
      safe: { type: 'boolean', default: false },
    },
  })
  if (!values.json) die('falta --json ARCHIVO (dónde escribir la descripción de la cadena)')
  const number = (name, text, min) => {
    const n = Number(text)
    if (!Number.isInteger(n) || n < min) die(`--${name} debe ser un entero ≥ ${min}, no ${JSON.stringify(text)}`)
    return n
  }
  const blockTime = values['block-time'] === undefined ? null : number('block-time', values['block-time'], 1)
  if (blockTime !== null && values['no-mining']) die('--block-time y --no-mining se excluyen')
  return {
    json: values.json,
    port: number('port', values.port, 0),
    blockTime,
    noMining: values['no-mining'],
    buyers: number('buyers', values.buyers, 1),
    usdc: BigInt(number('usdc', values.usdc, 1)) * 1_000_000n,
    exitOnStdinClose: values['exit-on-stdin-close'],
    anvilLog: values['anvil-log'],
    safe: values.safe,
  }
}

/** The anvil binary of the platform package @foundry-rs/anvil installed. */
function anvilBinary() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`
  const dir = path.dirname(require.resolve(`${platformPackage}/package.json`))
  return path.join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
}

/** Starts anvil and resolves with its process and RPC URL once it listens. */
function startAnvil(opts, accounts) {
  const args = [
    '--host', '127.0.0.1',
    '--port', String(opts.port),
    '--chain-id', String(CHAIN_ID),
    '--accounts', String(accounts),
    '--mnemonic', MNEMONIC,
    // Old states are dropped rather than written under ~/.foundry/anvil/tmp: anvil removes that
    // folder only on a clean exit, and a benchmark's or killed test's chain left gigabytes there.
    '--max-persisted-states', '0',
  ]
  const anvil = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const log = opts.anvilLog ? fs.createWriteStream(opts.anvilLog) : null
  return new Promise((resolve, reject) => {
    let seen = ''
    let ready = false
    const onData = (chunk) => {
      log?.write(chunk)
      if (ready) return
      seen += chunk.toString()
      const m = seen.match(/Listening on 127\.0\.0\.1:(\d+)/)
      if (m) {
        ready = true
        seen = ''
        resolve({ anvil, rpc: `http://127.0.0.1:${m[1]}` })
      }
    }
    // Both streams are always drained: anvil logs every request and would block on a full pipe.
    anvil.stdout.on('data', onData)
    anvil.stderr.on('data', (chunk) => {
      log?.write(chunk)
      if (!ready) seen += chunk.toString()
    })
    anvil.on('error', (e) => reject(new Error(`no se pudo ejecutar anvil (${anvilBinary()}): ${e.message}`)))
    anvil.on('exit', (code, signal) => {
      if (!ready) reject(new Error(`anvil terminó al arrancar (${signal ?? code}):\n${seen.slice(-2000)}`))
    })
  })
}

let rpcId = 0
/** One JSON-RPC call; throws with the node's message on an error answer. */
export async function rpc(url, method, params = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  })
  const body = await response.json()
  if (body.error) {
    const message = String(body.error.message ?? JSON.stringify(body.error))
    throw new Error(`${method}: ${message.length > 300 ? `${message.slice(0, 300)}…` : message}`)
  }
  return body.result
}

/** Sends a transaction from an unlocked account and checks that it succeeded (automine on). */
async function send(url, from, tx, what) {
  const hash = await rpc(url, 'eth_sendTransaction', [{ from, ...tx }])
  for (let i = 0; i < 500; i++) {
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`${what}: la transacción ${hash} falló`)
      return receipt
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`${what}: la transacción ${hash} no se minó en 5 s`)
}

async function call(url, abi, functionName, args = [], from = undefined) {
  const data = encodeFunctionData({ abi, functionName, args })
  const result = await rpc(url, 'eth_call', [{ to: USDC, data, ...(from ? { from } : {}) }, 'latest'])
  return decodeFunctionResult({ abi, functionName, data: result })
}

// The mnemonic's seed, derived once (PBKDF2 with 2048 rounds: ~40 ms a time in JS).
let root
function accountAt(index) {
  root ??= HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC))
  const account = hdKeyToAccount(root, { addressIndex: index })
  const privateKey = toHex(account.getHdKey().privateKey)
  return { index, address: account.address, privateKey }
}

/** A contract's creation code with each library placeholder replaced by the library's address. */
function link(contract, addresses) {
  let hex = contract.bytecode.slice(2)
  for (const libraries of Object.values(contract.linkReferences ?? {})) {
    for (const [name, refs] of Object.entries(libraries)) {
      const address = addresses[name]
      if (!address) throw new Error(`falta la dirección de la biblioteca ${name}`)
      for (const { start, length } of refs) {
        hex = hex.slice(0, start * 2) + address.slice(2).toLowerCase().padStart(length * 2, '0') + hex.slice((start + length) * 2)
      }
    }
  }
  if (hex.includes('__$')) throw new Error('quedan bibliotecas sin enlazar')
  return `0x${hex}`
}

/** Deploys the SignatureChecker library, FiatTokenV2_2 and its proxy, puts the proxy at USDC's address and initializes it. */
async function deployUsdc(url, contracts, roles) {
  const token = contracts.FiatTokenV2_2
  const proxy = contracts.FiatTokenProxy
  const admin = roles.proxy_admin.address
  const issuer = roles.issuer.address

  const library = getAddress(
    (await send(url, admin, { data: contracts.SignatureChecker.bytecode, gas: toHex(1_000_000n) }, 'SignatureChecker'))
      .contractAddress,
  )
  const linked = link(token, { SignatureChecker: library })
  const implementation = getAddress(
    (await send(url, admin, { data: linked, gas: toHex(8_000_000n) }, 'FiatTokenV2_2')).contractAddress,
  )
  const deployData = encodeDeployData({ abi: proxy.abi, bytecode: proxy.bytecode, args: [implementation] })
  const deployed = getAddress((await send(url, admin, { data: deployData, gas: toHex(2_000_000n) }, 'FiatTokenProxy')).contractAddress)
  const runtime = await rpc(url, 'eth_getCode', [deployed, 'latest'])
  if (runtime.toLowerCase() !== proxy.deployedBytecode.toLowerCase()) {
    throw new Error('el código del proxy desplegado no es el compilado')
  }

  // The same proxy at Base Sepolia USDC's address: its runtime code and its two slots.
  await rpc(url, 'anvil_setCode', [USDC, runtime])
  await rpc(url, 'anvil_setStorageAt', [USDC, ADMIN_SLOT, pad(admin)])
  await rpc(url, 'anvil_setStorageAt', [USDC, IMPLEMENTATION_SLOT, pad(implementation)])
  const proxyAdmin = await call(url, proxy.abi, 'admin', [], admin)
  const proxyImplementation = await call(url, proxy.abi, 'implementation', [], admin)
  if (getAddress(proxyAdmin) !== admin || getAddress(proxyImplementation) !== implementation) {
    throw new Error('el proxy en la dirección de USDC no lee su administrador o su implementación')
  }

  // Initialized through the proxy, by an account that is not the proxy's admin (the proxy
  // never forwards its admin's calls), as Circle's deploy scripts do.
  const txs = [
    ['initialize', ['USDC', 'USDC', 'USD', 6, issuer, issuer, issuer, issuer]],
    ['initializeV2', ['USDC']],
    ['initializeV2_1', [roles.lost_and_found.address]],
    ['initializeV2_2', [[], 'USDC']],
    ['configureMinter', [issuer, 2n ** 255n]],
  ]
  for (const [functionName, args] of txs) {
    const data = encodeFunctionData({ abi: token.abi, functionName, args })
    await send(url, issuer, { to: USDC, data, gas: toHex(1_000_000n) }, functionName)
  }
  return implementation
}

/** The package holding Safe's compiled contracts, and its version (pinned in package.json). */
const SAFE_PACKAGE = '@safe-global/safe-smart-account'

/** A compiled contract of Safe's package (its hardhat artifact). */
function safeArtifact(source, name) {
  const root = path.dirname(require.resolve(`${SAFE_PACKAGE}/package.json`))
  return JSON.parse(fs.readFileSync(path.join(root, 'build/artifacts/contracts', source, `${name}.json`), 'utf8'))
}

/**
 * Deploys Safe's singleton, proxy factory and fallback handler exactly as the package compiled
 * them (no library to link), and checks that each runtime code is the artifact's.
 */
async function deploySafe(url, deployer) {
  const version = require(`${SAFE_PACKAGE}/package.json`).version
  const contracts = [
    ['singleton', 'Safe.sol', 'Safe'],
    ['proxyFactory', 'proxies/SafeProxyFactory.sol', 'SafeProxyFactory'],
    ['fallbackHandler', 'handler/CompatibilityFallbackHandler.sol', 'CompatibilityFallbackHandler'],
  ]
  const out = { package: SAFE_PACKAGE, version }
  for (const [role, source, name] of contracts) {
    const artifact = safeArtifact(source, name)
    const receipt = await send(url, deployer, { data: artifact.bytecode, gas: toHex(8_000_000n) }, name)
    const address = getAddress(receipt.contractAddress)
    const runtime = await rpc(url, 'eth_getCode', [address, 'latest'])
    if (runtime.toLowerCase() !== artifact.deployedBytecode.toLowerCase()) {
      throw new Error(`el código desplegado de ${name} no es el del paquete ${SAFE_PACKAGE}`)
    }
    out[role] = address
  }
  return out
}

async function main() {
  const opts = options()
  const extraBuyers = Math.max(0, opts.buyers - FIXED_BUYERS.length)
  const buyerIndices = [...FIXED_BUYERS, ...Array.from({ length: extraBuyers }, (_, i) => ROLES.length + i)].slice(
    0,
    opts.buyers,
  )
  const contracts = (await compiled()).contracts
  const { anvil, rpc: url } = await startAnvil(opts, ROLES.length + extraBuyers)

  let stopping = false
  const stop = (code) => {
    if (stopping) return
    stopping = true
    if (anvil.exitCode === null && anvil.signalCode === null) {
      anvil.once('exit', () => process.exit(code))
      anvil.kill('SIGTERM')
      setTimeout(() => {
        anvil.kill('SIGKILL')
        process.exit(code)
      }, 3000).unref()
    } else {
      process.exit(code)
    }
  }
  process.on('SIGTERM', () => stop(0))
  process.on('SIGINT', () => stop(0))
  anvil.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`cadena: anvil terminó solo (${signal ?? code})\n`)
      process.exit(1)
    }
  })
  if (opts.exitOnStdinClose) {
    process.stdin.on('end', () => stop(0))
    process.stdin.on('close', () => stop(0))
    process.stdin.resume()
  }

  try {
    const roles = {}
    for (const r of ROLES) if (r.role !== 'buyer') roles[r.role] = accountAt(r.index)
    const issuer = roles.issuer.address
    const implementation = await deployUsdc(url, contracts, roles)
    const token = contracts.FiatTokenV2_2

    const buyers = buyerIndices.map(accountAt)
    for (const buyer of buyers) {
      const data = encodeFunctionData({ abi: token.abi, functionName: 'mint', args: [buyer.address, opts.usdc] })
      await send(url, issuer, { to: USDC, data, gas: toHex(200_000n) }, `mint a ${buyer.address}`)
    }

    // The domain a wallet signs under, as Base Sepolia's USDC answers it.
    const [name, version, domainSeparator, decimals, chainId] = await Promise.all([
      call(url, token.abi, 'name'),
      call(url, token.abi, 'version'),
      call(url, token.abi, 'DOMAIN_SEPARATOR'),
      call(url, token.abi, 'decimals'),
      rpc(url, 'eth_chainId'),
    ])
    const expected = hashDomain({
      domain: { name: 'USDC', version: '2', chainId: CHAIN_ID, verifyingContract: USDC },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    })
    if (Number(chainId) !== CHAIN_ID) throw new Error(`eth_chainId es ${chainId}, no ${CHAIN_ID}`)
    if (name !== 'USDC' || version !== '2' || decimals !== 6) {
      throw new Error(`name/version/decimals son ${name}/${version}/${decimals}, no USDC/2/6`)
    }
    if (domainSeparator !== expected || expected !== BASE_SEPOLIA_DOMAIN_SEPARATOR) {
      throw new Error(`DOMAIN_SEPARATOR ${domainSeparator}; calculado ${expected}; Base Sepolia ${BASE_SEPOLIA_DOMAIN_SEPARATOR}`)
    }
    for (const buyer of buyers) {
      const balance = await call(url, token.abi, 'balanceOf', [buyer.address])
      if (balance !== opts.usdc) throw new Error(`${buyer.address} tiene ${balance}, no ${opts.usdc}`)
    }

    const safe = opts.safe ? await deploySafe(url, roles.proxy_admin.address) : null

    // The mining mode asked for, now that the setup is mined.
    if (opts.blockTime !== null) await rpc(url, 'evm_setIntervalMining', [opts.blockTime])
    else if (opts.noMining) await rpc(url, 'evm_setAutomine', [false])

    const accounts = [
      ...buyers.map((b) => ({ role: 'buyer', ...b, usdc: opts.usdc.toString() })),
      ...ROLES.filter((r) => r.role !== 'buyer').map((r) => ({ role: r.role, ...roles[r.role], usdc: '0' })),
    ].sort((a, b) => a.index - b.index)
    const description = {
      rpc: url,
      chainId: CHAIN_ID,
      network: NETWORK,
      asset: USDC,
      implementation,
      eip712: { name, version, domainSeparator },
      decimals,
      mnemonic: MNEMONIC,
      mining: { automine: opts.blockTime === null && !opts.noMining, blockTime: opts.blockTime },
      ...(safe ? { safe } : {}),
      anvilPid: anvil.pid,
      pid: process.pid,
      accounts,
    }
    const tmp = `${opts.json}.${process.pid}.tmp`
    fs.writeFileSync(tmp, `${JSON.stringify(description, null, 2)}\n`)
    fs.renameSync(tmp, opts.json)
    process.stdout.write('listo\n')
  } catch (e) {
    process.stderr.write(`cadena: ${e.message}\n`)
    stop(1)
  }
}

await main()
