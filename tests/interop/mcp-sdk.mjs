// MCP client: the official @modelcontextprotocol/sdk lists and calls every tool on /mcp and
// /mcp/catalogo, then buys a study through comprar_estudio with the x402 MCP binding: the
// PaymentRequired comes in structuredContent, the PaymentPayload built by @x402/evm goes in
// _meta["x402/payment"], the receipt comes back in _meta["x402/payment-response"].
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { Checks, DEV_KEY, baseUrl, getJson, sha256Hex, studySlugs } from "./lib.mjs";

const base = baseUrl();
const checks = new Checks("mcp-sdk");
const FREE_TOOLS = ["listar_estudios", "buscar_estudios", "ver_ficha", "ver_metricas", "como_comprar"];
const BUY_TOOL = "comprar_estudio";

async function connect(path) {
  const client = new Client({ name: "interop-mcp-sdk", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`)));
  return client;
}

/** The JSON a tool result carries: structuredContent, or else the first text block. */
function payloadOf(result) {
  if (result.structuredContent) return result.structuredContent;
  const text = result.content?.find((c) => c.type === "text")?.text;
  return text === undefined ? undefined : JSON.parse(text);
}

async function callFree(client, endpoint, slugs) {
  const calls = [
    ["listar_estudios", {}, (j) => Array.isArray(j.estudios) && j.estudios.length === slugs.length],
    ["buscar_estudios", { q: "bancos argentina" }, (j) => JSON.stringify(j).includes(slugs.includes("banca-2026") ? "banca-2026" : slugs[0])],
    ["ver_ficha", { slug: slugs[0] }, (j) => j.slug === slugs[0] && typeof j.archivos?.zip?.sha256 === "string"],
    ["ver_metricas", {}, (j) => typeof j === "object" && j !== null],
    ["como_comprar", {}, (j) => typeof j === "object" && j !== null],
    ["como_comprar", { slug: slugs[0] }, (j) => JSON.stringify(j).includes("x402")],
  ];
  for (const [name, args, valid] of calls) {
    await checks.step(`${endpoint} ${name}`, async () => {
      const result = await client.callTool({ name, arguments: args });
      checks.ok(result.isError !== true, `${endpoint} ${name}(${JSON.stringify(args)}) is not an error`, result.content?.[0]?.text?.slice(0, 300));
      checks.ok(valid(payloadOf(result)), `${endpoint} ${name}(${JSON.stringify(args)}) answer`, result.content?.[0]?.text?.slice(0, 300));
    });
  }
  await checks.step(`${endpoint} ver_ficha unknown`, async () => {
    const result = await client.callTool({ name: "ver_ficha", arguments: { slug: "no-existe" } });
    checks.equal(result.isError, true, `${endpoint} ver_ficha of an unknown slug is a tool error`);
    checks.ok(JSON.stringify(result.content).includes(slugs[0]), `${endpoint} the error names the valid slugs`);
  });
}

async function listed(client, endpoint, expected) {
  const { tools } = await client.listTools();
  checks.equal(JSON.stringify(tools.map((t) => t.name)), JSON.stringify(expected), `${endpoint} tools/list names`);
  for (const tool of tools) {
    checks.equal(tool.inputSchema?.type, "object", `${endpoint} ${tool.name} inputSchema`);
    checks.ok(typeof tool.description === "string" && tool.description.includes("EN:"), `${endpoint} ${tool.name} Spanish and English description`);
    checks.equal(tool.annotations?.readOnlyHint, tool.name !== BUY_TOOL, `${endpoint} ${tool.name} readOnlyHint`);
  }
  return tools;
}

async function buy(client, slug, sheet) {
  const unpaid = await client.callTool({ name: BUY_TOOL, arguments: { slug, vista: "resumen" } });
  checks.equal(unpaid.isError, true, "unpaid comprar_estudio is a tool error");
  const required = unpaid.structuredContent;
  checks.equal(required?.x402Version, 2, "PaymentRequired in structuredContent");
  checks.equal(JSON.stringify(JSON.parse(unpaid.content[0].text)), JSON.stringify(required), "content[0].text is the same PaymentRequired");
  checks.ok(required?.resource?.url?.includes(BUY_TOOL), "resource.url names the tool", required?.resource);

  const payer = new x402Client();
  registerExactEvmScheme(payer, { signer: privateKeyToAccount(DEV_KEY) });
  const payment = await payer.createPaymentPayload(required);
  const paid = await client.callTool({ name: BUY_TOOL, arguments: { slug, vista: "resumen" }, _meta: { "x402/payment": payment } });
  if (!checks.ok(paid.isError !== true, "paid comprar_estudio succeeds", paid.content?.[0]?.text?.slice(0, 500))) return;
  const receipt = paid._meta?.["x402/payment-response"];
  checks.equal(receipt?.success, true, "receipt success in _meta");
  checks.equal(receipt?.network, "eip155:84532", "receipt network");
  checks.ok(/^0x[0-9a-f]{64}$/i.test(receipt?.transaction ?? ""), "receipt transaction", receipt);
  const study = payloadOf(paid);
  checks.equal(study.estudio, slug, "delivered study");
  checks.ok(typeof study.resumen === "object", "summary view delivered");
  const download = await fetch(study.acceso.descargas.zip.url);
  checks.equal(download.status, 200, "ZIP through the signed link");
  checks.equal(sha256Hex(Buffer.from(await download.arrayBuffer())), sheet.archivos.zip.sha256, "ZIP sha256 against the sheet");

  // A buyer who lost the answer repeats the same call: the same study again, the first receipt,
  // no second settlement. The same payment for another study is refused.
  const replay = await client.callTool({ name: BUY_TOOL, arguments: { slug, vista: "resumen" }, _meta: { "x402/payment": payment } });
  checks.ok(replay.isError !== true, "the same call repeated recovers the purchase", replay.content?.[0]?.text?.slice(0, 300));
  checks.equal(replay._meta?.["x402/payment-response"]?.transaction, receipt?.transaction, "the recovery carries the first receipt");
  const other = slug === "farma-2026" ? "banca-2026" : "farma-2026";
  const elsewhere = await client.callTool({ name: BUY_TOOL, arguments: { slug: other, vista: "resumen" }, _meta: { "x402/payment": payment } });
  checks.equal(elsewhere.isError, true, "the same payment for another study is refused");
  checks.equal(elsewhere.structuredContent?.x402Version, 2, "the refusal carries the PaymentRequired again");
  checks.ok(elsewhere._meta?.["x402/payment-response"]?.success !== true, "no receipt for the refused payment");
}

const slugs = await checks.step("catalog", () => studySlugs(base));
if (checks.ok(Array.isArray(slugs) && slugs.length > 0, "catalog lists studies")) {
  const full = await checks.step("connect /mcp", () => connect("/mcp"));
  if (full) {
    const info = full.getServerVersion();
    checks.ok(typeof info?.name === "string", "/mcp serverInfo", info);
    checks.ok((full.getInstructions() ?? "").includes("x402"), "/mcp instructions explain paying with x402");
    await checks.step("/mcp tools/list", () => listed(full, "/mcp", [...FREE_TOOLS, BUY_TOOL]));
    await callFree(full, "/mcp", slugs);
    const sheet = await getJson(`${base}/estudio/${slugs[0]}/ficha`);
    await checks.step("/mcp comprar_estudio", () => buy(full, slugs[0], sheet));
    await full.close();
  }
  const catalog = await checks.step("connect /mcp/catalogo", () => connect("/mcp/catalogo"));
  if (catalog) {
    await checks.step("/mcp/catalogo tools/list", () => listed(catalog, "/mcp/catalogo", FREE_TOOLS));
    await callFree(catalog, "/mcp/catalogo", slugs);
    const refused = await catalog.callTool({ name: BUY_TOOL, arguments: { slug: slugs[0] } }).then(
      (r) => r.isError === true,
      (e) => e?.code === -32602,
    );
    checks.ok(refused, "/mcp/catalogo does not sell");
    await catalog.close();
  }
}
checks.done();
