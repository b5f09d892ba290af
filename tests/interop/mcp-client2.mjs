// MCP client 2.x: the official @modelcontextprotocol/client (which knows both eras of the
// protocol) on /mcp and /mcp/catalogo, once pinned to the stateless revision 2026-07-28, once
// negotiating on its own ("auto", which must land on 2026-07-28 here), and once in its default
// legacy mode (the initialize handshake). In each it lists the tools (every input schema
// compiled as JSON Schema 2020-12 by Ajv), calls the free tools, and buys a study through
// comprar_estudio with the x402 MCP binding: PaymentRequired in structuredContent, the
// PaymentPayload built by @x402/evm in _meta["x402/payment"], the receipt in
// _meta["x402/payment-response"], the ZIP downloaded and checked against the sheet.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Ajv2020 } from "ajv/dist/2020.js";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { Checks, DEV_KEY, baseUrl, getJson, sha256Hex, studySlugs } from "./lib.mjs";

const base = baseUrl();
const checks = new Checks("mcp-client-2");
const FREE_TOOLS = ["listar_estudios", "buscar_estudios", "ver_ficha", "ver_metricas", "como_comprar"];
const BUY_TOOL = "comprar_estudio";
const MODERN = "2026-07-28";

const MODES = [
  { label: "2026-07-28 (pin)", options: { versionNegotiation: { mode: { pin: MODERN } } }, expected: MODERN },
  { label: "auto", options: { versionNegotiation: { mode: "auto" } }, expected: MODERN },
  { label: "legacy", options: {}, expected: "2025-11-25" },
];

async function connect(path, options) {
  const client = new Client({ name: "interop-mcp-client-2", version: "1.0.0" }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`)));
  return client;
}

function payloadOf(result) {
  if (result.structuredContent) return result.structuredContent;
  const text = result.content?.find((c) => c.type === "text")?.text;
  return text === undefined ? undefined : JSON.parse(text);
}

async function listed(client, where, expected) {
  const first = await client.listTools();
  checks.equal(JSON.stringify(first.tools.map((t) => t.name)), JSON.stringify(expected), `${where} tools/list names`);
  const ajv = new Ajv2020({ strict: false });
  for (const tool of first.tools) {
    let compiled = true;
    try {
      ajv.compile(tool.inputSchema);
    } catch (error) {
      compiled = String(error);
    }
    checks.equal(compiled, true, `${where} ${tool.name} inputSchema compiles as JSON Schema 2020-12`);
  }
  const again = await client.listTools({}, { cacheMode: "bypass" }).catch(() => client.listTools());
  checks.equal(JSON.stringify(again.tools), JSON.stringify(first.tools), `${where} tools/list is deterministic`);
}

async function callFree(client, where, slug) {
  const catalog = payloadOf(await client.callTool({ name: "listar_estudios", arguments: {} }));
  checks.ok(Array.isArray(catalog?.estudios) && catalog.estudios.length > 0, `${where} listar_estudios`);
  const sheet = await client.callTool({ name: "ver_ficha", arguments: { slug } });
  checks.equal(payloadOf(sheet)?.slug, slug, `${where} ver_ficha`);
  const found = payloadOf(await client.callTool({ name: "buscar_estudios", arguments: { q: "bancos" } }));
  checks.ok(Array.isArray(found?.resultados), `${where} buscar_estudios`);
  const unknown = await client.callTool({ name: "ver_ficha", arguments: { slug: "no-existe" } });
  checks.equal(unknown.isError, true, `${where} ver_ficha of an unknown slug is a tool error`);
}

async function buy(client, where, slug, sheet) {
  const unpaid = await client.callTool({ name: BUY_TOOL, arguments: { slug } });
  checks.equal(unpaid.isError, true, `${where} unpaid comprar_estudio is a tool error`);
  const required = unpaid.structuredContent;
  checks.equal(required?.x402Version, 2, `${where} PaymentRequired in structuredContent`);
  const payer = new x402Client();
  registerExactEvmScheme(payer, { signer: privateKeyToAccount(DEV_KEY) });
  const payment = await payer.createPaymentPayload(required);
  const paid = await client.callTool({ name: BUY_TOOL, arguments: { slug }, _meta: { "x402/payment": payment } });
  if (!checks.ok(paid.isError !== true, `${where} paid comprar_estudio succeeds`, paid.content?.[0]?.text?.slice(0, 400))) return;
  const receipt = paid._meta?.["x402/payment-response"];
  checks.equal(receipt?.success, true, `${where} receipt in _meta`);
  checks.ok(/^0x[0-9a-f]{64}$/i.test(receipt?.transaction ?? ""), `${where} receipt transaction`, receipt);
  const study = payloadOf(paid);
  checks.equal(study?.estudio, slug, `${where} delivered study`);
  const download = await fetch(study.acceso.descargas.zip.url);
  checks.equal(download.status, 200, `${where} ZIP through the signed link`);
  checks.equal(sha256Hex(Buffer.from(await download.arrayBuffer())), sheet.archivos.zip.sha256, `${where} ZIP sha256`);
  const replay = await client.callTool({ name: BUY_TOOL, arguments: { slug }, _meta: { "x402/payment": payment } });
  checks.equal(replay._meta?.["x402/payment-response"]?.transaction, receipt?.transaction, `${where} a repeat recovers the purchase`);
}

const slugs = await checks.step("catalog", () => studySlugs(base));
if (checks.ok(Array.isArray(slugs) && slugs.length > 2, "catalog lists studies")) {
  for (const [index, mode] of MODES.entries()) {
    const slug = slugs[index % slugs.length];
    const sheet = await getJson(`${base}/estudio/${slug}/ficha`);
    const full = await checks.step(`connect /mcp ${mode.label}`, () => connect("/mcp", mode.options));
    if (full) {
      const where = `/mcp ${mode.label}`;
      checks.equal(full.getNegotiatedProtocolVersion(), mode.expected, `${where} negotiated revision`);
      checks.ok(typeof full.getServerVersion()?.name === "string", `${where} server identity`, full.getServerVersion());
      checks.ok((full.getInstructions() ?? "").includes("x402"), `${where} instructions explain paying with x402`);
      await checks.step(`${where} tools/list`, () => listed(full, where, [...FREE_TOOLS, BUY_TOOL]));
      await checks.step(`${where} free tools`, () => callFree(full, where, slug));
      await checks.step(`${where} comprar_estudio`, () => buy(full, where, slug, sheet));
      await full.close();
    }
    const catalog = await checks.step(`connect /mcp/catalogo ${mode.label}`, () => connect("/mcp/catalogo", mode.options));
    if (catalog) {
      const where = `/mcp/catalogo ${mode.label}`;
      checks.equal(catalog.getNegotiatedProtocolVersion(), mode.expected, `${where} negotiated revision`);
      await checks.step(`${where} tools/list`, () => listed(catalog, where, FREE_TOOLS));
      await checks.step(`${where} free tools`, () => callFree(catalog, where, slug));
      const refused = await catalog.callTool({ name: BUY_TOOL, arguments: { slug } }).then(
        (r) => r.isError === true,
        (e) => e?.code === -32602,
      );
      checks.ok(refused, `${where} does not sell`);
      await catalog.close();
    }
  }
}
checks.done();
