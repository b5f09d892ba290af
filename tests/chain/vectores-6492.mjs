// Test vectors for smart wallets' signatures, made with viem (an implementation the gate did not
// write): the EIP-712 digest of USDC's TransferWithAuthorization, ERC-6492 wrappers
// (`serializeErc6492Signature`) and their parts, the ERC-1271 `isValidSignature` calldata and the
// deployless ERC-6492 validation call (`encodeDeployData` of viem's own validator, the call
// viem's `verifyHash` makes). The gate's unit tests (gate/src/chain/signature.rs) hold its
// encoding to them.
//
//   cd tests/chain && node vectores-6492.mjs > ../../gate/src/x402/vectors/erc6492.json
//
// Deterministic: fixed keys (Anvil's public development keys), addresses and messages.

import {
  encodeDeployData,
  encodeFunctionData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  hashTypedData,
  parseAbi,
  parseErc6492Signature,
  serializeErc6492Signature,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const erc1271Abi = parseAbi(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)'])

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
// Anvil's public development keys #2 and #3 (never for real funds).
const OWNER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')
const SECOND = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6')

const domain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: USDC }
const types = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
}

function digestFor(from) {
  return hashTypedData({
    domain,
    types,
    primaryType: 'TransferWithAuthorization',
    message: {
      from,
      to: PAY_TO,
      value: 990000n,
      validAfter: 1800000000n - 600n,
      validBefore: 1800000300n,
      nonce: `0x${'ab'.repeat(32)}`,
    },
  })
}

/** A Safe's owner signature over the SafeMessage of `digest` (Safe's CompatibilityFallbackHandler). */
async function safeOwnerSignature(owner, safe, digest) {
  return owner.signTypedData({
    domain: { chainId: 84532, verifyingContract: safe },
    types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
    primaryType: 'SafeMessage',
    message: { message: digest },
  })
}

const SAFE = '0x1111111111111111111111111111111111111111'
const UNDEPLOYED = '0x2222222222222222222222222222222222222222'
const FACTORY = '0x3333333333333333333333333333333333333333'
const COINBASE_FACTORY = '0x0BA5ED0c6AA8c49038F819E587E2633c4A9F428a'
const coinbaseFactoryAbi = [
  {
    name: 'createAccount',
    type: 'function',
    stateMutability: 'payable',
    inputs: [
      { name: 'owners', type: 'bytes[]' },
      { name: 'nonce', type: 'uint256' },
    ],
    outputs: [{ name: 'account', type: 'address' }],
  },
]

function calls(signer, digest, signature) {
  const out = {
    isValidSignatureCall: encodeFunctionData({ abi: erc1271Abi, functionName: 'isValidSignature', args: [digest, signature] }),
  }
  const parsed = parseErc6492Signature(signature)
  if (parsed.address) {
    out.erc6492 = { factory: parsed.address, factoryCalldata: parsed.data, signature: parsed.signature }
    out.deploylessCall = encodeDeployData({
      abi: erc6492SignatureValidatorAbi,
      args: [signer, digest, signature],
      bytecode: erc6492SignatureValidatorByteCode,
    })
  }
  return out
}

async function main() {
  const cases = []
  {
    const digest = digestFor(SAFE)
    const signature = await safeOwnerSignature(OWNER, SAFE, digest)
    cases.push({ id: 'erc1271-one-owner-safe', about: 'a one-owner Safe: its owner signs the SafeMessage (65 bytes)', signer: SAFE, digest, signature, ...calls(SAFE, digest, signature) })
  }
  {
    const digest = digestFor(SAFE)
    const [a, b] = [OWNER, SECOND].sort((x, y) => (x.address.toLowerCase() < y.address.toLowerCase() ? -1 : 1))
    const signature = `0x${(await safeOwnerSignature(a, SAFE, digest)).slice(2)}${(await safeOwnerSignature(b, SAFE, digest)).slice(2)}`
    cases.push({ id: 'erc1271-two-owner-safe', about: 'a two-owner Safe: both owners, in address order (130 bytes)', signer: SAFE, digest, signature, ...calls(SAFE, digest, signature) })
  }
  {
    const digest = digestFor(UNDEPLOYED)
    const inner = await safeOwnerSignature(OWNER, UNDEPLOYED, digest)
    const factoryCalldata = `0x1688f0b9${'00'.repeat(20)}${'cd'.repeat(44)}`
    const signature = serializeErc6492Signature({ address: FACTORY, data: factoryCalldata, signature: inner })
    cases.push({ id: 'erc6492-wrapped-safe', about: 'a Safe not yet deployed: its factory call wraps the owner signature', signer: UNDEPLOYED, digest, signature, ...calls(UNDEPLOYED, digest, signature) })
  }
  {
    const digest = digestFor(UNDEPLOYED)
    const factoryCalldata = encodeFunctionData({
      abi: coinbaseFactoryAbi,
      functionName: 'createAccount',
      args: [[`0x${'00'.repeat(12)}${OWNER.address.slice(2).toLowerCase()}`], 0n],
    })
    const inner = `0x${'00'.repeat(31)}20${'ee'.repeat(97)}`
    const signature = serializeErc6492Signature({ address: COINBASE_FACTORY, data: factoryCalldata, signature: inner })
    cases.push({ id: 'erc6492-coinbase-factory', about: "Coinbase Smart Wallet's factory call wrapping a 129-byte inner signature", signer: UNDEPLOYED, digest, signature, ...calls(UNDEPLOYED, digest, signature) })
  }
  const out = {
    about:
      'Smart wallets\' signatures of USDC TransferWithAuthorization digests (Base Sepolia domain), made by tests/chain/vectores-6492.mjs with viem 2.57.20: the ERC-1271 isValidSignature calldata, ERC-6492 wrappers with their parts, and the deployless ERC-6492 validation call (viem\'s erc6492SignatureValidatorByteCode and its constructor arguments). Keys are Anvil\'s public development keys.',
    validatorCreationCode: erc6492SignatureValidatorByteCode,
    cases,
  }
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`)
}

await main()
