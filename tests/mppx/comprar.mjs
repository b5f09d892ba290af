// The official MPP client (mppx, pinned in package.json) buying one study view from the gate
// with only the `evm` charge method configured: no x402 client is registered, so a purchase
// can only happen through the gate's `WWW-Authenticate: Payment` challenge (or mppx's own x402
// compatibility path of the same method, which the answer's headers tell apart).
//
// env: ESTUDIO_URL, EVM_PRIVATE_KEY, CHAIN_ID, TOKEN (USDC contract), TOKEN_NAME, TOKEN_VERSION.
// Prints one JSON line: {status, receipt, paymentResponse, nombre}.
import { Mppx } from "mppx/client";
import { charge } from "mppx/evm/client";
import { privateKeyToAccount } from "viem/accounts";

const account = privateKeyToAccount(process.env.EVM_PRIVATE_KEY);
const mppx = Mppx.create({
  polyfill: false,
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

const response = await mppx.fetch(process.env.ESTUDIO_URL);
const text = await response.text();
let nombre = null;
try {
  nombre = JSON.parse(text).nombre ?? null;
} catch {}
console.log(
  JSON.stringify({
    status: response.status,
    receipt: response.headers.get("payment-receipt"),
    paymentResponse: response.headers.get("payment-response") !== null,
    nombre,
    body: response.status === 200 ? null : text.slice(0, 2000),
  }),
);
