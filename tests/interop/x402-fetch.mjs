// x402 TypeScript client: @x402/fetch + @x402/evm with a viem local account buys every study in
// both views, decodes PAYMENT-RESPONSE and downloads the ZIP through the signed link, checking
// its sha256 against the study sheet. Nothing here knows the gate's internals.
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { Checks, DEV_KEY, baseUrl, getJson, sha256Hex, studySlugs } from "./lib.mjs";

const base = baseUrl();
const checks = new Checks("x402-fetch");
const account = privateKeyToAccount(DEV_KEY);
const client = new x402Client();
registerExactEvmScheme(client, { signer: account });
const fetchWithPayment = wrapFetchWithPayment(fetch, client);

async function buy(slug, view, sheet) {
  const response = await fetchWithPayment(`${base}/estudio/${slug}?vista=${view}`);
  if (!checks.equal(response.status, 200, `${slug} ${view}: status after paying`)) {
    console.error(await response.text());
    return;
  }
  const receipt = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE") ?? "");
  checks.equal(receipt.success, true, `${slug} ${view}: PAYMENT-RESPONSE success`);
  checks.equal(receipt.network, "eip155:84532", `${slug} ${view}: settled network`);
  checks.ok(/^0x[0-9a-f]{64}$/i.test(receipt.transaction ?? ""), `${slug} ${view}: transaction hash`, receipt.transaction);
  checks.equal(receipt.payer?.toLowerCase(), account.address.toLowerCase(), `${slug} ${view}: payer`);
  const body = await response.json();
  checks.equal(body.estudio, slug, `${slug} ${view}: estudio`);
  checks.equal(body.vista, view, `${slug} ${view}: vista`);
  checks.ok(typeof body[view === "resumen" ? "resumen" : "paquete"] === "object", `${slug} ${view}: content delivered`);
  const link = body.acceso?.descargas?.zip;
  if (!checks.ok(typeof link?.url === "string", `${slug} ${view}: signed ZIP link`, body.acceso)) return;
  const download = await fetch(link.url);
  checks.equal(download.status, 200, `${slug} ${view}: ZIP download status`);
  const bytes = Buffer.from(await download.arrayBuffer());
  checks.equal(bytes.length, Number(download.headers.get("content-length")), `${slug} ${view}: ZIP length`);
  checks.equal(sha256Hex(bytes), sheet.archivos.zip.sha256, `${slug} ${view}: ZIP sha256 against the sheet`);
  checks.equal(bytes.subarray(0, 4).toString("hex"), "504b0304", `${slug} ${view}: ZIP magic`);
}

const slugs = await checks.step("catalog", () => studySlugs(base));
checks.ok(Array.isArray(slugs) && slugs.length > 0, "catalog lists studies");
for (const slug of slugs ?? []) {
  const sheet = await checks.step(`${slug}: sheet`, () => getJson(`${base}/estudio/${slug}/ficha`));
  if (!sheet) continue;
  for (const view of ["completo", "resumen"]) {
    await checks.step(`${slug} ${view}`, () => buy(slug, view, sheet));
  }
}
checks.done();
