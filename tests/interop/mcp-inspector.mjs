// MCP inspector CLI (@modelcontextprotocol/inspector, needs Node 22): lists the tools of /mcp
// with its schema-portability check, calls a free tool, gets the payment-required result of
// comprar_estudio (exit 5 = isError), then buys with a payment passed as --tool-metadata.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { Checks, DEV_KEY, baseUrl, studySlugs } from "./lib.mjs";

const base = baseUrl();
const checks = new Checks("mcp-inspector");
const home = mkdtempSync(join(tmpdir(), "inspector-"));

/** Runs the inspector CLI against /mcp; returns its exit code and parsed JSON stdout. */
function inspector(...args) {
  const run = spawnSync("mcp-inspector", ["--cli", `${base}/mcp`, "--transport", "http", "--format", "json", ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") },
  });
  let json;
  try {
    const parsed = JSON.parse(run.stdout); // --format json wraps the answer as {"result": …}
    json = parsed?.result ?? parsed;
  } catch {
    json = undefined;
  }
  if (run.status !== 0 && run.status !== 5) console.error(run.stdout, run.stderr);
  return { code: run.status, json, stderr: run.stderr };
}

const slugs = await checks.step("catalog", () => studySlugs(base));
const slug = slugs?.[0];

const list = inspector("--method", "tools/list", "--strict");
checks.equal(list.code, 0, "tools/list --strict exits 0 (no schema portability error)");
checks.equal(list.json?.tools?.length, 6, "tools/list shows six tools");

const sheet = inspector("--method", "tools/call", "--tool-name", "ver_ficha", "--tool-arg", `slug=${slug}`);
checks.equal(sheet.code, 0, "ver_ficha exits 0");
checks.equal(sheet.json?.structuredContent?.slug, slug, "ver_ficha answers the sheet");

const unpaid = inspector("--method", "tools/call", "--tool-name", "comprar_estudio", "--tool-arg", `slug=${slug}`);
checks.equal(unpaid.code, 5, "comprar_estudio without payment exits 5 (isError)");
const required = unpaid.json?.structuredContent;
checks.equal(required?.x402Version, 2, "the PaymentRequired is in structuredContent");

if (required) {
  const payer = new x402Client();
  registerExactEvmScheme(payer, { signer: privateKeyToAccount(DEV_KEY) });
  const payment = await payer.createPaymentPayload(required);
  const paid = inspector(
    "--method", "tools/call", "--tool-name", "comprar_estudio", "--tool-arg", `slug=${slug}`,
    "--tool-metadata", `x402/payment=${JSON.stringify(payment)}`,
  );
  checks.equal(paid.code, 0, "paid comprar_estudio exits 0");
  checks.equal(paid.json?._meta?.["x402/payment-response"]?.success, true, "the receipt is in _meta");
  checks.equal(paid.json?.structuredContent?.estudio, slug, "the study is delivered");
}
rmSync(home, { recursive: true, force: true });
checks.done();
