// The official MPP MCP client (mppx/mcp/client's McpClient.wrap around the official MCP SDK
// client, both pinned in package.json) calling `comprar_estudio` with only the `evm` charge
// method configured: it pays from the MPP challenges the gate puts beside x402's
// PaymentRequired, and gets the receipt in `_meta["org.paymentauth/receipt"]`.
//
// env: MCP_URL, SLUG, VISTA, EVM_PRIVATE_KEY, CHAIN_ID, TOKEN, TOKEN_NAME, TOKEN_VERSION.
// Prints one JSON line: {isError, receipt, x402Receipt, nombre}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpClient } from "mppx/mcp/client";
import { charge } from "mppx/evm/client";
import { privateKeyToAccount } from "viem/accounts";

const account = privateKeyToAccount(process.env.EVM_PRIVATE_KEY);
const sdk = new Client({ name: "mppx-mcp-prueba", version: "0.0.0" });
await sdk.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL)));
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
    text: result.isError ? JSON.stringify(result.content).slice(0, 2000) : null,
  }),
);
await sdk.close();
