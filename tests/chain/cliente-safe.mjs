// An official x402 client with a smart-account signer buys one study view: @x402/fetch with
// @x402/evm's `exact` client scheme, unchanged, signing with a viem smart account
// (`toSmartAccount` from viem/account-abstraction) for a one-owner Safe 1.5.0 of the chain
// `cadena.mjs --safe` started. viem's `toSmartAccount` wraps the signature by ERC-6492 on its own
// while the Safe is not deployed (its factory and `createProxyWithNonce` calldata) and sends the
// plain ERC-1271 signature once it is. The Safe-specific part is Safe's own signing rule (the
// owner's EIP-712 `SafeMessage` of the hash asked about, what Safe's CompatibilityFallbackHandler
// checks), as Safe's SDKs (and permissionless's `toSafeSmartAccount`) sign it.
//
//   node cliente-safe.mjs --chain FILE --url URL --owner-key 0x… [--salt N]
//
// Prints one JSON line: {status, payer, deployedBefore, signatureBytes, erc6492, paymentResponse, estudio, vista}.

import fs from 'node:fs'
import { parseArgs } from 'node:util'

import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import {
  createPublicClient,
  defineChain,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  hashMessage,
  hashTypedData,
  http,
  isErc6492Signature,
  keccak256,
  parseAbi,
  zeroAddress,
} from 'viem'
import { entryPoint07Abi, entryPoint07Address, toSmartAccount } from 'viem/account-abstraction'
import { privateKeyToAccount } from 'viem/accounts'

const safeAbi = parseAbi([
  'function setup(address[] owners, uint256 threshold, address to, bytes data, address fallbackHandler, address paymentToken, uint256 payment, address paymentReceiver)',
  'function createProxyWithNonce(address singleton, bytes initializer, uint256 saltNonce) returns (address proxy)',
  'function proxyCreationCode() pure returns (bytes)',
])

function die(message) {
  process.stderr.write(`cliente-safe: ${message}\n`)
  process.exit(1)
}

const { values } = parseArgs({
  options: {
    chain: { type: 'string' },
    url: { type: 'string' },
    'owner-key': { type: 'string' },
    salt: { type: 'string', default: '0' },
  },
})
if (!values.chain || !values.url || !values['owner-key']) die('faltan --chain, --url o --owner-key')
const description = JSON.parse(fs.readFileSync(values.chain, 'utf8'))
if (!description.safe) die('la cadena no tiene Safe (cadena.mjs --safe)')
const { singleton, proxyFactory, fallbackHandler } = description.safe

const chain = defineChain({
  id: description.chainId,
  name: 'anvil (Base Sepolia)',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [description.rpc] } },
})
const client = createPublicClient({ chain, transport: http(description.rpc) })
const owner = privateKeyToAccount(values['owner-key'])

const initializer = encodeFunctionData({
  abi: safeAbi,
  functionName: 'setup',
  args: [[owner.address], 1n, zeroAddress, '0x', fallbackHandler, zeroAddress, 0n, zeroAddress],
})
const factoryData = encodeFunctionData({
  abi: safeAbi,
  functionName: 'createProxyWithNonce',
  args: [singleton, initializer, BigInt(values.salt)],
})

/**
 * The Safe's address, deployed or not: SafeProxyFactory's CREATE2 with salt
 * keccak256(keccak256(initializer) ‖ saltNonce) and the proxy's creation code followed by the
 * singleton's address.
 */
async function safeAddress() {
  const creationCode = await client.readContract({ address: proxyFactory, abi: safeAbi, functionName: 'proxyCreationCode' })
  const salt = keccak256(encodePacked(['bytes32', 'uint256'], [keccak256(initializer), BigInt(values.salt)]))
  const bytecode = encodePacked(['bytes', 'uint256'], [creationCode, BigInt(singleton)])
  return getContractAddress({ opcode: 'CREATE2', from: proxyFactory, salt, bytecode })
}

/** The owner's signature of `hash` as the Safe's ERC-1271 checks it. */
async function signSafeMessage(address, hash) {
  return owner.signTypedData({
    domain: { chainId: chain.id, verifyingContract: address },
    types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
    primaryType: 'SafeMessage',
    message: { message: hash },
  })
}

const address = await safeAddress()
const account = await toSmartAccount({
  client,
  entryPoint: { abi: entryPoint07Abi, address: entryPoint07Address, version: '0.7' },
  async getAddress() {
    return address
  },
  async getFactoryArgs() {
    return { factory: proxyFactory, factoryData }
  },
  async signMessage({ message }) {
    return signSafeMessage(address, hashMessage(message))
  },
  async signTypedData(typedData) {
    return signSafeMessage(address, hashTypedData(typedData))
  },
  async encodeCalls() {
    throw new Error('este ejemplo solo firma')
  },
  async decodeCalls() {
    throw new Error('este ejemplo solo firma')
  },
  async getStubSignature() {
    return `0x${'ff'.repeat(65)}`
  },
  async signUserOperation() {
    throw new Error('este ejemplo solo firma')
  },
})

// What the official client will send: recorded from the request it makes, not computed here.
let sent = null
const recording = async (input, init) => {
  const request = new Request(input, init)
  const header = request.headers.get('PAYMENT-SIGNATURE')
  if (header) sent = JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
  return fetch(request)
}

const deployedBefore = await account.isDeployed()
const x402 = new x402Client()
registerExactEvmScheme(x402, { signer: account })
const fetchWithPayment = wrapFetchWithPayment(recording, x402)
const response = await fetchWithPayment(values.url)
const text = await response.text()
let body = {}
try {
  body = JSON.parse(text)
} catch {
  body = { texto: text }
}
const header = response.headers.get('PAYMENT-RESPONSE')
const signature = sent?.payload?.signature ?? '0x'
process.stdout.write(
  `${JSON.stringify({
    status: response.status,
    payer: address,
    deployedBefore,
    from: sent?.payload?.authorization?.from ?? null,
    signatureBytes: (signature.length - 2) / 2,
    erc6492: isErc6492Signature(signature),
    paymentResponse: header ? decodePaymentResponseHeader(header) : null,
    estudio: body.estudio ?? null,
    vista: body.vista ?? null,
    error: body.error ?? null,
  })}\n`,
)
