// The official MPP MCP client (mppx/mcp/client's McpClient.wrap, pinned in package.json)
// calling `comprar_estudio` with only the `evm` charge method configured, around one of two
// official MCP clients:
// - CLIENT=sdk1: @modelcontextprotocol/sdk 1.x, the `initialize` era. Its requests carry no
//   capabilities (a stateless server never sees what initialize declared), so the gate answers
//   x402's tool-result binding with MPP's challenges in _meta["org.paymentauth/payment-required"],
//   which McpClient reads;
// - CLIENT=client2: @modelcontextprotocol/client 2.x pinned to the stateless revision
//   2026-07-28, declaring MPP's `experimental.payment` capability in every request: the gate
//   answers MPP's JSON-RPC error -32042.
// Either way it pays and gets the receipt in `_meta["org.paymentauth/receipt"]`. A fetch
// wrapper records which binding the gate's answers used.
//
// env: CLIENT, MCP_URL, SLUG, VISTA, EVM_PRIVATE_KEY, CHAIN_ID, TOKEN, TOKEN_NAME, TOKEN_VERSION.
// Prints one JSON line: {isError, receipt, x402Receipt, nombre, bindings}.
import { McpClient } from "mppx/mcp/client";
import { charge } from "mppx/evm/client";
import { privateKeyToAccount } from "viem/accounts";

const bindings = [];
async function recording(input, init) {
  const response = await fetch(input, init);
  const text = await response.clone().text();
  try {
    const message = JSON.parse(text);
    if ([-32042, -32043].includes(message.error?.code)) bindings.push(`error ${message.error.code}`);
    else if (message.result?._meta?.["org.paymentauth/payment-required"] && message.result?.isError)
      bindings.push("tool-result");
    else if (message.result?._meta?.["org.paymentauth/receipt"]) bindings.push("receipt");
  } catch {
    // Not JSON (an empty 202): nothing to record.
  }
  return response;
}

const url = new URL(process.env.MCP_URL);
let sdk;
if (process.env.CLIENT === "client2") {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  sdk = new Client(
    { name: "mppx-mcp-2026", version: "0.0.0" },
    {
      capabilities: { experimental: { payment: { methods: { evm: { intents: ["charge"] } } } } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  await sdk.connect(new StreamableHTTPClientTransport(url, { fetch: recording }));
} else {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  sdk = new Client({ name: "mppx-mcp-prueba", version: "0.0.0" });
  await sdk.connect(new StreamableHTTPClientTransport(url, { fetch: recording }));
}
const account = privateKeyToAccount(process.env.EVM_PRIVATE_KEY);
const client = McpClient.wrap(sdk, {
  methods: [
    charge({
      account,
      authorization: { name: process.env.TOKEN_NAME, version: process.env.TOKEN_VERSION },
      networks: [Number(process.env.CHAIN_ID)],
      currencies: [process.env.TOKEN],
      decimals: 6,
      maxAmount: "1",
    }),
  ],
});
const result = await client.callTool({
  name: "comprar_estudio",
  arguments: { slug: process.env.SLUG, vista: process.env.VISTA },
});
console.log(
  JSON.stringify({
    isError: result.isError === true,
    receipt: result.receipt ?? null,
    x402Receipt: result._meta?.["x402/payment-response"] ?? null,
    nombre: result.structuredContent?.nombre ?? null,
    bindings,
    text: result.isError ? JSON.stringify(result.content).slice(0, 2000) : null,
  }),
);
await sdk.close();
