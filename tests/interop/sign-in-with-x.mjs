// Re-access with x402 sign-in-with-x, judged and driven by the official @x402/extensions
// package (./sign-in-with-x): the gate's declaration is the package's shape; a proof the package
// builds from the gate's challenge passes the package's own server-side validators; a wallet
// that never bought is turned away by the gate (the official fetch wrapper gets the 402 back);
// the official payment client with the SIWX client extension registered pays once, then gets
// the study again with fresh links and no charge; the standalone SIWX fetch wrapper does the
// same for the other view; a replayed proof is refused; and over MCP a proof built by
// createSIWxPayload in _meta["x402/sign-in-with-x"] re-gets the study too.
//
// Then the links expire: a second gate over the same dist and a copy of the first one's data,
// its clock eight days ahead (GATE_RELOJ_PRUEBA, honoured only by test builds), refuses the
// purchase's links and gives the buyer's signed-in request the study again with links of its
// own. tests/tests/reacceso.rs moves the clock of an in-process gate the same way.
//
//   node sign-in-with-x.mjs http://127.0.0.1:PORT DATA_DIR GATE_BINARY DIST_DIR
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import {
  SIGN_IN_WITH_X,
  buildSIWxSchema,
  createSIWxClientExtension,
  createSIWxPayload,
  declareSIWxExtension,
  encodeSIWxHeader,
  parseSIWxHeader,
  validateSIWxMessage,
  verifySIWxSignature,
  wrapFetchWithSIWx,
} from "@x402/extensions/sign-in-with-x";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

import { Checks, baseUrl, sha256Hex } from "./lib.mjs";

const base = baseUrl();
const dataDir = process.argv[3];
const gateBinary = process.argv[4];
const distDir = process.argv[5];
const checks = new Checks("sign-in-with-x");
const slug = "cosmetica-2026";
const url = (view) => `${base}/estudio/${slug}?vista=${view}`;
// A wallet of its own, so "never bought" is true whatever ran before (the local facilitator
// funds any address).
const wallet = privateKeyToAccount(generatePrivateKey());

const settlements = () => JSON.parse(readFileSync(`${dataDir}/libro-local.json`, "utf8")).liquidaciones;
const reaccesses = () =>
  readFileSync(`${dataDir}/ventas.jsonl`, "utf8").split("\n").filter((l) => l.includes('"evento":"reacceso"')).length;
const decode = (header) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));

async function challengeOf(view) {
  const response = await fetch(url(view));
  checks.equal(response.status, 402, `${view}: 402 without payment`);
  const required = decode(response.headers.get("PAYMENT-REQUIRED"));
  const body = await response.json();
  return { required, extension: required.extensions?.[SIGN_IN_WITH_X], whole: body.x402?.extensions?.[SIGN_IN_WITH_X] };
}

/** The files behind a delivery's fresh links, checked against their sha256. */
async function checkLinks(study, what) {
  for (const kind of ["json", "zip"]) {
    const link = study.acceso?.descargas?.[kind];
    const bytes = Buffer.from(await (await fetch(link.url)).arrayBuffer());
    checks.equal(sha256Hex(bytes), link.sha256, `${what}: ${kind} downloads through its fresh link`);
  }
}

await checks.step("the declaration is the package's, and its challenge passes the package's validators", async () => {
  const { required, extension, whole } = await challengeOf("resumen");
  checks.ok(extension !== undefined, "the 402 declares sign-in-with-x", Object.keys(required.extensions ?? {}));
  // PAYMENT-REQUIRED carries info and supportedChains, what the client signs with; the
  // declaration's schema is in the body's whole PaymentRequired.
  checks.ok(extension.schema === undefined, "no schema in PAYMENT-REQUIRED", Object.keys(extension));
  checks.ok(isDeepStrictEqual(whole?.schema, buildSIWxSchema()), "the body's schema equals buildSIWxSchema()", whole?.schema);
  checks.ok(isDeepStrictEqual(whole?.supportedChains, extension.supportedChains), "the body's supportedChains are the header's");
  const networks = required.accepts.map((a) => a.network).filter((n) => n.startsWith("eip155:"));
  const declared = declareSIWxExtension({ network: networks })[SIGN_IN_WITH_X];
  checks.ok(isDeepStrictEqual(extension.supportedChains, declared.supportedChains), "supportedChains as declareSIWxExtension", extension.supportedChains);
  const info = extension.info;
  checks.equal(info.domain, new URL(base).host, "info.domain is the gate's host");
  checks.equal(info.uri, required.resource.url, "info.uri is the study's URL");
  checks.ok(isDeepStrictEqual(info.resources, [info.uri]), "info.resources", info.resources);
  checks.ok(/^[0-9a-f]{32}$/.test(info.nonce), "info.nonce: 32 hex characters", info.nonce);
  checks.equal(new Date(info.expirationTime) - new Date(info.issuedAt), 300_000, "a five-minute challenge");

  const payload = await createSIWxPayload({ ...info, chainId: networks[0], type: "eip191" }, wallet, url("resumen"));
  const parsed = parseSIWxHeader(encodeSIWxHeader(payload));
  const validation = await validateSIWxMessage(parsed, new URL(base));
  checks.ok(validation.isValid, "validateSIWxMessage accepts the gate's challenge", validation);
  const verification = await verifySIWxSignature(parsed);
  checks.ok(verification.isValid && verification.payer === wallet.address, "verifySIWxSignature", verification);
  const second = await challengeOf("resumen");
  checks.ok(second.extension.info.nonce !== info.nonce, "every 402 its own nonce");
});

await checks.step("a wallet that never bought gets the 402 back from the official SIWX wrapper", async () => {
  const before = settlements();
  const response = await wrapFetchWithSIWx(fetch, wallet)(url("resumen"));
  checks.equal(response.status, 402, "402 again");
  const body = await response.json();
  checks.equal(body.error, "sin_compra", "refused: no purchase by that wallet");
  checks.ok(body.x402?.accepts?.length > 0, "with the requirements to buy it");
  checks.equal(settlements(), before, "nothing charged");
});

let bought;
await checks.step("the official payment client with the SIWX extension pays once, then signs in for free", async () => {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: wallet });
  client.registerExtension(createSIWxClientExtension({ signers: [wallet] }));
  const fetchWithPayment = wrapFetchWithPayment(fetch, client);

  const before = settlements();
  const first = await fetchWithPayment(url("resumen"));
  checks.equal(first.status, 200, "first: the sign-in is refused (never bought), so it pays");
  checks.equal(decodePaymentResponseHeader(first.headers.get("PAYMENT-RESPONSE") ?? "").success, true, "first: PAYMENT-RESPONSE");
  bought = await first.json();
  checks.equal(settlements(), before + 1, "first: one settlement");

  await new Promise((resolve) => setTimeout(resolve, 1100)); // so fresh links carry a later expiry
  const reaccessBefore = reaccesses();
  const again = await fetchWithPayment(url("resumen"));
  checks.equal(again.status, 200, "again: the sign-in gets the study");
  checks.equal(again.headers.get("PAYMENT-RESPONSE"), null, "again: no payment");
  const study = await again.json();
  checks.equal(study.estudio, slug, "again: the study");
  checks.equal(study.reacceso?.transaccion, bought.liquidacion?.transaccion, "again: names the sale it proved");
  checks.equal(settlements(), before + 1, "again: not charged");
  checks.equal(reaccesses(), reaccessBefore + 1, "again: journaled as reacceso");
  checks.ok(study.acceso.vence_unix > bought.acceso.vence_unix, "again: links issued now, not the purchase's", [study.acceso.vence_unix, bought.acceso.vence_unix]);
  checks.ok(study.acceso.descargas.zip.url !== bought.acceso.descargas.zip.url, "again: another link");
  await checkLinks(study, "again");
});

await checks.step("the SIWX fetch wrapper gets the other view, and a replayed proof is refused", async () => {
  const before = settlements();
  const full = await wrapFetchWithSIWx(fetch, wallet)(url("completo"));
  checks.equal(full.status, 200, "the view asked, whichever was bought");
  const study = await full.json();
  checks.ok(Array.isArray(study.paquete?.respuestas), "the full package");
  checks.equal(study.reacceso?.vista_comprada, "resumen", "bought as the summary");
  await checkLinks(study, "completo");

  const { extension } = await challengeOf("resumen");
  const payload = await createSIWxPayload({ ...extension.info, chainId: extension.supportedChains[0].chainId, type: "eip191" }, wallet, url("resumen"));
  const headers = { [SIGN_IN_WITH_X]: encodeSIWxHeader(payload) };
  checks.equal((await fetch(url("resumen"), { headers })).status, 200, "a proof, once");
  const replay = await fetch(url("resumen"), { headers });
  checks.equal(replay.status, 402, "the same proof again: 402");
  checks.equal((await replay.json()).error, "prueba_ya_usada", "refused as used");
  checks.equal(settlements(), before, "nothing charged");
});

await checks.step("over MCP, a createSIWxPayload proof in _meta re-gets the study", async () => {
  const call = async (meta) => {
    const params = { name: "comprar_estudio", arguments: { slug, vista: "resumen" } };
    if (meta) params._meta = meta;
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    });
    return (await response.json()).result;
  };
  const unpaid = await call();
  const extension = unpaid.structuredContent.extensions?.[SIGN_IN_WITH_X];
  checks.ok(extension !== undefined, "the MCP 402 declares sign-in-with-x");
  const payload = await createSIWxPayload({ ...extension.info, chainId: extension.supportedChains[0].chainId, type: "eip191" }, wallet, `${base}/mcp`);
  const before = settlements();
  const result = await call({ "x402/sign-in-with-x": payload });
  checks.equal(result.isError, false, "the tool answers the study", result.structuredContent?.error);
  checks.equal(result.structuredContent?.reacceso?.transaccion, bought?.liquidacion?.transaccion, "the sale it proved");
  checks.equal(result._meta?.["x402/payment-response"], undefined, "no receipt: nothing paid");
  await checkLinks(result.structuredContent, "MCP");
  checks.equal(settlements(), before, "nothing charged");
});

/** A free loopback port. */
function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The same URL on another gate (the links name the first gate's base_url). */
const on = (link, other) => {
  const moved = new URL(link);
  moved.port = new URL(other).port;
  return moved.toString();
};

await checks.step("a week later, on a gate whose clock is 8 days ahead: dead links, the study again by signing in", async () => {
  const data = mkdtempSync(join(tmpdir(), "siwx-semana-"));
  cpSync(dataDir, data, { recursive: true });
  const port = await freePort();
  const later = `http://127.0.0.1:${port}`;
  const gate = spawn(gateBinary, ["--dist", distDir, "--listen", `127.0.0.1:${port}`, "--data", data, "--threads", "1"], {
    env: { ...process.env, GATE_RELOJ_PRUEBA: String(8 * 86_400), GATE_LOG: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    let up = false;
    for (let i = 0; i < 100 && !up; i += 1) {
      up = await fetch(`${later}/catalogo`).then((r) => r.ok, () => false);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!checks.ok(up, "the second gate answers")) return;
    const dead = await fetch(on(bought.acceso.descargas.zip.url, later));
    checks.equal(dead.status, 403, "the purchase's ZIP link has expired");
    const refusal = await dead.json();
    checks.ok(/venci/.test(refusal.mensaje ?? "") && /sign-in-with-x/.test(refusal.mensaje ?? ""), "it says so, and how to get the study again", refusal);

    const response = await fetch(`${later}/estudio/${slug}?vista=resumen`);
    checks.equal(response.status, 402, "a week later: 402 without payment");
    const extension = decode(response.headers.get("PAYMENT-REQUIRED")).extensions?.[SIGN_IN_WITH_X];
    const payload = await createSIWxPayload({ ...extension.info, chainId: extension.supportedChains[0].chainId, type: "eip191" }, wallet, url("resumen"));
    const settledLater = () => JSON.parse(readFileSync(`${data}/libro-local.json`, "utf8")).liquidaciones;
    const before = settledLater();
    const again = await fetch(`${later}/estudio/${slug}?vista=resumen`, { headers: { [SIGN_IN_WITH_X]: encodeSIWxHeader(payload) } });
    checks.equal(again.status, 200, "a week later: signed in, the study again");
    const study = await again.json();
    checks.equal(study.reacceso?.transaccion, bought.liquidacion?.transaccion, "a week later: the sale it proved");
    checks.ok(study.acceso.vence_unix > bought.acceso.vence_unix + 7 * 86_400, "a week later: links valid from the gate's now", [study.acceso.vence_unix, bought.acceso.vence_unix]);
    checks.equal(JSON.stringify(study.liquidacion?.recibo), JSON.stringify(bought.liquidacion?.recibo), "a week later: the purchase's own signed receipt again");
    for (const kind of ["json", "zip"]) {
      const link = study.acceso.descargas[kind];
      const bytes = Buffer.from(await (await fetch(on(link.url, later))).arrayBuffer());
      checks.equal(sha256Hex(bytes), link.sha256, `a week later: ${kind} through its new link`);
    }
    checks.equal(settledLater(), before, "a week later: nothing charged");
  } finally {
    gate.kill("SIGTERM");
    await new Promise((resolve) => gate.once("exit", resolve));
    rmSync(data, { recursive: true, force: true });
  }
});

checks.done();
