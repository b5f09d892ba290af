// x402 extensions, judged by the official @x402/extensions package: the payment-identifier and
// bazaar declarations of the HTTP 402 (the body's whole PaymentRequired; its header carries the
// part a client reads to pay) and of the MCP tool's 402 (identical sets, each valid),
// and the official TypeScript client with the payment-identifier extension registered (as the
// x402 example client does) recovering a purchase whose response was dropped on the way back:
// it retries under the same id and gets the study, charged once.
//
//   node x402-extensions.mjs http://127.0.0.1:PORT DATA_DIR
import { readFileSync } from "node:fs";
import http from "node:http";
import { isDeepStrictEqual } from "node:util";

import {
  declareDiscoveryExtension,
  extractDiscoveryInfoFromExtension,
  validateDiscoveryExtension,
} from "@x402/extensions/bazaar";
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  isPaymentIdentifierExtension,
} from "@x402/extensions/payment-identifier";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

import { Checks, DEV_KEY, baseUrl } from "./lib.mjs";

const base = baseUrl();
const dataDir = process.argv[3];
const checks = new Checks("x402-extensions");
const slug = "farma-2026";

const settlements = () => JSON.parse(readFileSync(`${dataDir}/libro-local.json`, "utf8")).liquidaciones;
const decode = (header) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));

/** Both declarations, checked with the package's own validators. */
function checkDeclarations(extensions, transport, what) {
  checks.ok(isPaymentIdentifierExtension(extensions?.["payment-identifier"]), `${what}: payment-identifier shape`);
  checks.ok(
    isDeepStrictEqual(extensions?.["payment-identifier"], declarePaymentIdentifierExtension(false)),
    `${what}: payment-identifier equals declarePaymentIdentifierExtension(false)`,
    extensions?.["payment-identifier"],
  );
  const bazaar = extensions?.bazaar;
  const validation = validateDiscoveryExtension(bazaar);
  checks.ok(validation.valid, `${what}: bazaar valid for @x402/extensions`, validation.errors);
  const info = extractDiscoveryInfoFromExtension(bazaar);
  checks.equal(info.input.type, transport, `${what}: bazaar input type`);
  return info;
}

const httpRequired = await checks.step("HTTP 402 declarations", async () => {
  const response = await fetch(`${base}/estudio/${slug}?vista=resumen`);
  checks.equal(response.status, 402, "HTTP: 402 without payment");
  // PAYMENT-REQUIRED carries what a client reads to pay (payment-identifier's and
  // sign-in-with-x's info); the whole declarations, bazaar and schemas included, are in the
  // body's PaymentRequired (field x402).
  const header = decode(response.headers.get("PAYMENT-REQUIRED"));
  const required = (await response.json()).x402;
  checks.ok(
    isDeepStrictEqual(Object.keys(header.extensions).sort(), ["payment-identifier", "sign-in-with-x"]),
    "PAYMENT-REQUIRED declares payment-identifier and sign-in-with-x",
    Object.keys(header.extensions),
  );
  checks.ok(isPaymentIdentifierExtension(header.extensions["payment-identifier"]), "PAYMENT-REQUIRED: payment-identifier shape");
  checks.ok(
    isDeepStrictEqual(header.extensions["payment-identifier"].info, required.extensions["payment-identifier"].info),
    "PAYMENT-REQUIRED: payment-identifier info as in the body",
  );
  checks.ok(isDeepStrictEqual(header.accepts, required.accepts), "PAYMENT-REQUIRED: the body's accepts");
  const info = checkDeclarations(required.extensions, "http", "HTTP");
  checks.ok(
    isDeepStrictEqual(Object.keys(required.extensions).sort(), ["bazaar", "offer-receipt", "payment-identifier", "sign-in-with-x"]),
    "HTTP declares bazaar, offer-receipt (judged in offer-receipt.mjs), payment-identifier and sign-in-with-x (judged in sign-in-with-x.mjs)",
    Object.keys(required.extensions),
  );
  checks.equal(info.input.method, "GET", "HTTP bazaar: method");
  checks.equal(info.input.queryParams?.vista, "resumen", "HTTP bazaar: the view");
  checks.equal(info.output?.example?.estudio, slug, "HTTP bazaar: the example answer names the study");
  // The same shape the package declares for this query (before the server adds the method).
  const reference = declareDiscoveryExtension({
    input: { vista: "resumen" },
    inputSchema: { properties: { vista: { type: "string", enum: ["completo", "resumen"] } } },
    output: { example: info.output.example },
  }).bazaar;
  checks.equal(
    JSON.stringify(Object.keys(required.extensions.bazaar.schema.properties).sort()),
    JSON.stringify(Object.keys(reference.schema.properties).sort()),
    "HTTP bazaar: schema has the package's parts",
  );
  checks.ok(required.resource.serviceName?.length <= 32, "resource serviceName within 32", required.resource);
  checks.ok((required.resource.tags ?? []).length <= 5, "resource tags at most 5", required.resource);
  return required;
});

const mcpRequired = await checks.step("MCP 402 declarations", async () => {
  const response = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "comprar_estudio", arguments: { slug } } }),
  });
  const { result } = await response.json();
  const required = result.structuredContent;
  const info = checkDeclarations(required.extensions, "mcp", "MCP");
  checks.ok(
    isDeepStrictEqual(Object.keys(required.extensions).sort(), Object.keys(httpRequired?.extensions ?? {}).sort()),
    "MCP declares the same extensions as HTTP",
    Object.keys(required.extensions),
  );
  checks.equal(info.input.toolName, "comprar_estudio", "MCP bazaar: tool name");
  checks.equal(info.input.example?.slug, slug, "MCP bazaar: example call");
  checks.ok(info.input.inputSchema?.properties?.slug?.enum?.includes(slug), "MCP bazaar: the tool's input schema");
  return required;
});
checks.ok(mcpRequired !== undefined, "MCP 402 read");

await checks.step("a dropped response recovered by the official client under the same id", async () => {
  // A proxy that lets the paid request reach the gate, waits for the gate's full answer, and
  // then cuts the buyer's connection instead of forwarding it: the sale happened, the buyer has
  // nothing.
  let dropped = 0;
  const proxy = http.createServer(async (request, response) => {
    const headers = { ...request.headers };
    delete headers.host;
    const upstream = await fetch(`${base}${request.url}`, { method: request.method, headers });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (request.headers["payment-signature"] && dropped === 0) {
      dropped += 1;
      request.socket.destroy();
      return;
    }
    const out = {};
    upstream.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection") out[name] = value;
    });
    response.writeHead(upstream.status, out);
    response.end(body);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${proxy.address().port}/estudio/${slug}?vista=resumen`;

  // The x402 example client's way to register a payment id: one id for this logical purchase.
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(DEV_KEY) });
  const paymentId = generatePaymentId();
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (!paymentRequired.extensions) paymentRequired.extensions = {};
    appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
  });
  const fetchWithPayment = wrapFetchWithPayment(fetch, client);

  const before = settlements();
  let first;
  try {
    first = await fetchWithPayment(url);
  } catch (error) {
    first = error;
  }
  checks.ok(first instanceof Error, "the first answer was dropped", first?.status);
  checks.equal(dropped, 1, "the proxy dropped the paid answer");
  checks.equal(settlements(), before + 1, "the dropped purchase was settled");

  const retry = await fetchWithPayment(url);
  checks.equal(retry.status, 200, "the retry under the same id gets the study");
  const receipt = decodePaymentResponseHeader(retry.headers.get("PAYMENT-RESPONSE") ?? "");
  checks.equal(receipt.success, true, "the retry's PAYMENT-RESPONSE");
  const body = await retry.json();
  checks.equal(body.estudio, slug, "the study delivered");
  checks.equal(settlements(), before + 1, "charged once: the retry's new signature was not settled");
  proxy.close();
});

checks.done();
