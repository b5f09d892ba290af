// An x402 facilitator the project did not write: the official @x402/core facilitator with the
// @x402/evm `exact` scheme's facilitator side, settling on the local chain through viem with
// the chain's independent settler key (or any key and RPC given).
//
//   node facilitador-x402.mjs --chain FILE [--port N] [--rpc URL] [--key 0x…]
//                             [--confirmation-timeout-ms N] [--factory 0x… …] [--exit-on-stdin-close]
//
//   --chain FILE                 the JSON cadena.mjs wrote (RPC URL and the independent_settler key)
//   --port N                     port on 127.0.0.1 (default 0: any free port)
//   --rpc URL, --key 0x…         override the chain file's RPC URL or settler key
//   --confirmation-timeout-ms N  how long a settlement waits for its receipt before answering
//                                `settlement_pending` with the transaction (default 180000)
//   --factory 0x…                an ERC-6492 factory the facilitator may call to deploy a payer's
//                                smart wallet before settling (the scheme's eip6492AllowedFactories;
//                                repeatable; none by default, as @x402/evm)
//   --exit-on-stdin-close        exit when standard input closes (the parent died)
//
// Serves the x402 facilitator API for eip155:84532: POST /verify and POST /settle with the body
// {x402Version, paymentPayload, paymentRequirements}, GET /supported, GET /health. Answers
// 200 with the VerifyResponse or SettleResponse (valid or not, successful or not), 400 for a
// body that is not that JSON, 500 with {error} when the library throws. Prints "puerto N"
// once it listens.

import fs from 'node:fs'
import http from 'node:http'
import { parseArgs } from 'node:util'

import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/facilitator'
import { createWalletClient, defineChain, http as viemHttp, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const NETWORK = 'eip155:84532'

function die(message) {
  process.stderr.write(`facilitador-x402: ${message}\n`)
  process.exit(1)
}

function options() {
  const { values } = parseArgs({
    options: {
      chain: { type: 'string' },
      port: { type: 'string', default: '0' },
      rpc: { type: 'string' },
      key: { type: 'string' },
      'confirmation-timeout-ms': { type: 'string', default: '180000' },
      factory: { type: 'string', multiple: true, default: [] },
      'exit-on-stdin-close': { type: 'boolean', default: false },
    },
  })
  let rpc = values.rpc
  let key = values.key
  if (values.chain) {
    const chain = JSON.parse(fs.readFileSync(values.chain, 'utf8'))
    rpc ??= chain.rpc
    key ??= chain.accounts.find((a) => a.role === 'independent_settler')?.privateKey
  }
  if (!rpc || !key) die('falta --chain ARCHIVO (o --rpc URL y --key 0x…)')
  const port = Number(values.port)
  const timeout = Number(values['confirmation-timeout-ms'])
  if (!Number.isInteger(port) || port < 0 || port > 65535) die(`--port no es un puerto: ${values.port}`)
  if (!Number.isInteger(timeout) || timeout < 1) die(`--confirmation-timeout-ms no es un entero positivo`)
  return { rpc, key, port, timeout, factories: values.factory, exitOnStdinClose: values['exit-on-stdin-close'] }
}

function facilitator(opts) {
  const account = privateKeyToAccount(opts.key)
  const chain = defineChain({
    id: 84532,
    name: 'anvil (Base Sepolia)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpc] } },
  })
  // A short polling interval: anvil mines at once (or every few seconds), and viem's default
  // (4 s for a chain it does not know) would add seconds to every settlement.
  const client = createWalletClient({ account, chain, transport: viemHttp(opts.rpc), pollingInterval: 50 }).extend(
    publicActions,
  )
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (args) => client.getCode(args),
      readContract: (args) => client.readContract({ ...args, args: args.args ?? [] }),
      verifyTypedData: (args) => client.verifyTypedData(args),
      writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] }),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    },
    { confirmationTimeoutMs: opts.timeout },
  )
  return new x402Facilitator().register(NETWORK, new ExactEvmScheme(signer, { eip6492AllowedFactories: opts.factories }))
}

function reply(res, status, body) {
  const bytes = JSON.stringify(body, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(bytes) })
  res.end(bytes)
}

async function readJson(req) {
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > 1 << 20) throw new Error('cuerpo de más de 1 MiB')
    chunks.push(chunk)
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function main() {
  const opts = options()
  const x402 = facilitator(opts)
  const server = http.createServer(async (req, res) => {
    const route = `${req.method} ${new URL(req.url, 'http://x').pathname}`
    try {
      if (route === 'GET /supported') return reply(res, 200, x402.getSupported())
      if (route === 'GET /health') return reply(res, 200, { status: 'ok' })
      if (route !== 'POST /verify' && route !== 'POST /settle') return reply(res, 404, { error: 'no existe' })
      let body
      try {
        body = await readJson(req)
      } catch (e) {
        return reply(res, 400, { error: `cuerpo ilegible: ${e.message}` })
      }
      const { paymentPayload, paymentRequirements } = body ?? {}
      if (typeof paymentPayload !== 'object' || typeof paymentRequirements !== 'object' || !paymentPayload || !paymentRequirements) {
        return reply(res, 400, { error: 'faltan paymentPayload o paymentRequirements' })
      }
      const result =
        route === 'POST /verify'
          ? await x402.verify(paymentPayload, paymentRequirements)
          : await x402.settle(paymentPayload, paymentRequirements)
      return reply(res, 200, result)
    } catch (e) {
      return reply(res, 500, { error: e instanceof Error ? e.message : String(e) })
    }
  })
  server.listen(opts.port, '127.0.0.1', () => {
    process.stdout.write(`puerto ${server.address().port}\n`)
  })
  const stop = () => server.close(() => process.exit(0)) && setTimeout(() => process.exit(0), 1000).unref()
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  if (opts.exitOnStdinClose) {
    process.stdin.on('end', stop)
    process.stdin.on('close', stop)
    process.stdin.resume()
  }
}

main()
