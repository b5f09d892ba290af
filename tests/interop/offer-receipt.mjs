// x402 offer-receipt, judged by the official @x402/extensions/offer-receipt helpers: the signed
// offers of the HTTP 402 (in its body's whole PaymentRequired) and of the MCP 402, the receipt of a purchase made by the official client
// (@x402/fetch), of one made over MCP, and of one made by the `comprar` binary, each verified
// by the key its `kid` names (did:key) and by the key the gate publishes in its did:web
// document (resolved by the package itself); each must fail once one byte of it changes.
// `comprar verificar-recibo` must agree, with a non-zero exit for a changed receipt or file.
//
//   node offer-receipt.mjs http://127.0.0.1:PORT BIN_DIR
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  decodeSignedOffers,
  extractJWSHeader,
  extractOffersFromPaymentRequired,
  extractPublicKeyFromKid,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
} from "@x402/extensions/offer-receipt";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

import { Checks, DEV_ADDRESS, DEV_KEY, baseUrl, getJson, sha256Hex } from "./lib.mjs";

const base = baseUrl();
const binDir = process.argv[3];
const checks = new Checks("offer-receipt");
const decode = (header) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));
const b64url = (text) => Buffer.from(text, "utf8").toString("base64url");

/** Whether the official verifier refuses a receipt (throws). */
async function refused(receipt, key) {
  try {
    await verifyReceiptSignatureJWS(receipt, key);
    return false;
  } catch {
    return true;
  }
}

/** The receipt with one character of its JWS changed at `at` (another base64url character). */
function oneByteChanged(receipt, at) {
  const jws = receipt.signature;
  const swapped = jws[at] === "Q" ? "R" : "Q";
  return { ...receipt, signature: jws.slice(0, at) + swapped + jws.slice(at + 1) };
}

/** The receipt's checks that hold whoever bought: signature by both keys, fields, tampering. */
async function judgeReceipt(receipt, published, didKey, what, expected) {
  checks.equal(receipt?.format, "jws", `${what}: a JWS receipt`);
  checks.equal(extractJWSHeader(receipt.signature).kid?.split("#")[0], didKey, `${what}: kid is the published did:key`);
  const payload = await verifyReceiptSignatureJWS(receipt); // the key resolved from the kid (did:key)
  const again = await verifyReceiptSignatureJWS(receipt, published); // the key of the gate's did:web document
  checks.ok(JSON.stringify(again) === JSON.stringify(payload), `${what}: verifies under the published key`);
  checks.equal(payload.version, 1, `${what}: payload version`);
  checks.equal(payload.estudio, expected.slug, `${what}: the study`);
  checks.equal(payload.vista, expected.vista, `${what}: the view`);
  checks.equal(payload.resourceUrl, `${base}/estudio/${expected.slug}?vista=${expected.vista}`, `${what}: resourceUrl`);
  checks.equal(payload.payer?.toLowerCase(), DEV_ADDRESS.toLowerCase(), `${what}: payer`);
  checks.equal(payload.amount, expected.accepted.amount, `${what}: amount`);
  checks.equal(payload.asset, expected.accepted.asset, `${what}: asset`);
  checks.equal(payload.network, expected.accepted.network, `${what}: network`);
  if (expected.transaction) checks.equal(payload.transaction, expected.transaction, `${what}: transaction`);
  checks.ok(Math.abs(payload.issuedAt - Date.now() / 1000) < 300, `${what}: issuedAt is the settlement's time`, payload.issuedAt);
  for (const kind of ["json", "zip"]) {
    const file = expected.sheet.archivos?.[kind];
    checks.equal(payload.archivos?.[kind]?.archivo, file?.nombre, `${what}: the ${kind} file as the sheet names it`);
    checks.equal(payload.archivos?.[kind]?.sha256, file?.sha256, `${what}: sha256 of the ${kind} as the sheet lists it`);
  }
  const jws = receipt.signature;
  const payloadAt = jws.indexOf(".") + 1;
  for (const at of [2, payloadAt + 7, payloadAt + 150, jws.length - 3]) {
    checks.ok(await refused(oneByteChanged(receipt, at)), `${what}: one byte changed at ${at} is refused (kid key)`);
    checks.ok(await refused(oneByteChanged(receipt, at), published), `${what}: one byte changed at ${at} is refused (published key)`);
  }
  const parts = jws.split(".");
  const forged = { ...payload, archivos: { ...payload.archivos, zip: { ...payload.archivos.zip, sha256: "0".repeat(64) } } };
  const rewritten = { format: "jws", signature: [parts[0], b64url(JSON.stringify(forged)), parts[2]].join(".") };
  checks.ok(await refused(rewritten, published), `${what}: a payload claiming another ZIP is refused`);
  return payload;
}

const slugs = (await getJson(`${base}/catalogo`)).estudios.map((e) => e.slug);
const [httpSlug, mcpSlug, cliSlug] = [slugs[0], slugs[1], slugs[2]];
const sheets = Object.fromEntries(
  await Promise.all([httpSlug, mcpSlug, cliSlug].map(async (slug) => [slug, await getJson(`${base}/estudio/${slug}/ficha`)])),
);

// The key the gate publishes, resolved by the package from the did:web document of its host.
const didWeb = `did:web:${encodeURIComponent(new URL(base).host)}`;
const published = await checks.step("did:web document", () => extractPublicKeyFromKid(`${didWeb}#recibos`));
const document = await getJson(`${base}/.well-known/did.json`);
checks.equal(document.id, didWeb, "did.json names the gate's host");
const didKey = `did:key:${document.verificationMethod?.[0]?.publicKeyMultibase}`;

const httpOffer = await checks.step("HTTP 402 offers", async () => {
  const response = await fetch(`${base}/estudio/${httpSlug}?vista=resumen`);
  checks.equal(response.status, 402, "HTTP: 402 without payment");
  // The signed offers are in the body's whole PaymentRequired (field x402); PAYMENT-REQUIRED
  // carries what pays, and leaves them out to keep the 402's head within a proxy's 4 KB.
  const header = decode(response.headers.get("PAYMENT-REQUIRED"));
  const required = (await response.json()).x402;
  checks.equal(extractOffersFromPaymentRequired(header).length, 0, "no signed offers in PAYMENT-REQUIRED");
  checks.ok(isDeepStrictEqual(header.accepts, required.accepts), "the header's accepts are the body's");
  const offers = extractOffersFromPaymentRequired(required);
  checks.equal(offers.length, required.accepts.length, "one signed offer per accepts entry");
  for (const offer of offers) {
    const payload = await verifyOfferSignatureJWS(offer);
    await verifyOfferSignatureJWS(offer, published);
    checks.equal(payload.resourceUrl, required.resource.url, "offer resourceUrl is the 402's resource");
    checks.ok(findAcceptsObjectFromSignedOffer(offer, required.accepts) === required.accepts[offer.acceptIndex], "offer matches its accepts entry");
    checks.equal(extractJWSHeader(offer.signature).kid?.split("#")[0], didKey, "offer kid is the published did:key");
  }
  const tampered = { ...offers[0], signature: offers[0].signature.slice(0, -3) + (offers[0].signature.at(-3) === "Q" ? "R" : "Q") + offers[0].signature.slice(-2) };
  let rejected = false;
  try {
    await verifyOfferSignatureJWS(tampered, published);
  } catch {
    rejected = true;
  }
  checks.ok(rejected, "an offer with one byte changed is refused");
  return { required, decoded: decodeSignedOffers(offers)[0] };
});

await checks.step("a purchase by @x402/fetch returns a receipt the helpers verify", async () => {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(DEV_KEY) });
  const response = await wrapFetchWithPayment(fetch, client)(`${base}/estudio/${httpSlug}?vista=resumen`);
  checks.equal(response.status, 200, "paid");
  const settlement = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE"));
  const receipt = extractReceiptFromResponse(response);
  const body = await response.json();
  const accepted = httpOffer.required.accepts[0];
  const payload = await judgeReceipt(receipt, published, didKey, "HTTP", {
    slug: httpSlug,
    vista: "resumen",
    accepted,
    transaction: settlement.transaction,
    sheet: sheets[httpSlug],
  });
  checks.ok(verifyReceiptMatchesOffer(receipt, httpOffer.decoded, [DEV_ADDRESS]), "verifyReceiptMatchesOffer: the receipt answers the offer");
  checks.ok(JSON.stringify(body.liquidacion?.recibo) === JSON.stringify(receipt), "the body carries the same receipt");
  const zip = Buffer.from(await (await fetch(body.acceso.descargas.zip.url)).arrayBuffer());
  checks.equal(sha256Hex(zip), payload.archivos.zip.sha256, "the ZIP downloaded is the one the receipt names");
});

await checks.step("a purchase over MCP returns a receipt the helpers verify", async () => {
  const call = async (meta) => {
    const params = { name: "comprar_estudio", arguments: { slug: mcpSlug, vista: "resumen" } };
    if (meta) params._meta = meta;
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
    });
    return (await response.json()).result;
  };
  const required = (await call()).structuredContent;
  const offers = extractOffersFromPaymentRequired(required);
  checks.equal(offers.length, required.accepts.length, "MCP: one signed offer per accepts entry");
  for (const offer of offers) await verifyOfferSignatureJWS(offer, published);
  const payer = new x402Client();
  registerExactEvmScheme(payer, { signer: privateKeyToAccount(DEV_KEY) });
  const paid = await call({ "x402/payment": await payer.createPaymentPayload(required) });
  checks.ok(paid.isError !== true, "MCP: paid", paid.content?.[0]?.text?.slice(0, 300));
  const settlement = paid._meta?.["x402/payment-response"];
  const receipt = settlement?.extensions?.["offer-receipt"]?.info?.receipt;
  await judgeReceipt(receipt, published, didKey, "MCP", {
    slug: mcpSlug,
    vista: "resumen",
    accepted: required.accepts[0],
    transaction: settlement.transaction,
    sheet: sheets[mcpSlug],
  });
  checks.ok(verifyReceiptMatchesOffer(receipt, decodeSignedOffers(offers)[0], [DEV_ADDRESS]), "MCP: the receipt answers the MCP offer");
});

await checks.step("comprar saves a receipt that the helpers and comprar verificar-recibo verify", async () => {
  const out = mkdtempSync(join(tmpdir(), "recibo-"));
  try {
    const comprar = (...args) => spawnSync(join(binDir, "comprar"), args, { encoding: "utf8" });
    const bought = comprar(`${base}/estudio/${cliSlug}`, "--key", DEV_KEY, "--vista", "resumen", "--out", out);
    checks.equal(bought.status, 0, "comprar buys", bought.stderr);
    const path = join(out, `${cliSlug}.resumen.recibo.json`);
    const receipt = JSON.parse(readFileSync(path, "utf8"));
    const accepted = decode((await fetch(`${base}/estudio/${cliSlug}?vista=resumen`)).headers.get("PAYMENT-REQUIRED")).accepts[0];
    await judgeReceipt(receipt, published, didKey, "comprar", { slug: cliSlug, vista: "resumen", accepted, sheet: sheets[cliSlug] });

    const good = comprar("verificar-recibo", path, "--clave-publica", didKey);
    checks.equal(good.status, 0, "verificar-recibo: a good receipt and its files", good.stderr);
    checks.ok(/Firma válida/.test(good.stdout) && (good.stdout.match(/: coincide/g) ?? []).length === 2, "verificar-recibo: signature and both files", good.stdout);
    const other = comprar("verificar-recibo", path, "--clave-publica", "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK");
    checks.equal(other.status, 1, "verificar-recibo: another publisher's key is refused");
    checks.ok(/no por la clave esperada/.test(other.stderr), "verificar-recibo: says which key signed", other.stderr);

    const changed = join(out, "cambiado.recibo.json");
    const text = readFileSync(path, "utf8");
    const at = text.indexOf(".") + 40; // inside the JWS payload
    writeFileSync(changed, text.slice(0, at) + (text[at] === "Q" ? "R" : "Q") + text.slice(at + 1));
    const tampered = comprar("verificar-recibo", changed, "--clave-publica", didKey);
    checks.equal(tampered.status, 1, "verificar-recibo: one byte changed in the receipt is refused");
    checks.ok(/no es válido/.test(tampered.stderr), "verificar-recibo: says the receipt is not valid", tampered.stderr);
    checks.ok(await refused(JSON.parse(readFileSync(changed, "utf8")), published), "the helper refuses the same changed file");

    const zip = join(out, receipt && JSON.parse(Buffer.from(receipt.signature.split(".")[1], "base64url")).archivos.zip.archivo);
    const bytes = readFileSync(zip);
    bytes[200] ^= 1;
    writeFileSync(zip, bytes);
    const damaged = comprar("verificar-recibo", path, "--clave-publica", didKey);
    checks.equal(damaged.status, 1, "verificar-recibo: a changed ZIP is refused");
    checks.ok(/NO COINCIDE/.test(damaged.stdout), "verificar-recibo: names the file that differs", damaged.stdout);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

checks.done();
