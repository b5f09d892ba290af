// The official MPP client (mppx, pinned in package.json) buying one study view from the gate
// with only the `evm` charge method configured: no x402 client is registered, so a purchase
// can only happen through the gate's `WWW-Authenticate: Payment` challenge (or mppx's own x402
// compatibility path of the same method, which the answer's headers tell apart).
//
// mppx sends MPP's `Accept-Payment` request header itself (from its configured methods:
// `evm/charge`), or the one the caller sets (ACCEPT_PAYMENT); a fetch wrapper records what each
// request carried, so the test holds that the gate heard it and still sold.
//
// env: ESTUDIO_URL, EVM_PRIVATE_KEY, CHAIN_ID, TOKEN (USDC contract), TOKEN_NAME, TOKEN_VERSION,
// ACCEPT_PAYMENT (optional).
// Prints one JSON line: {status, receipt, paymentResponse, nombre, acceptPayment}.
import { Mppx } from "mppx/client";
import { charge } from "mppx/evm/client";
import { privateKeyToAccount } from "viem/accounts";

const sent = [];
async function recording(input, init) {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  sent.push(headers.get("accept-payment"));
  return fetch(input, init);
}

const account = privateKeyToAccount(process.env.EVM_PRIVATE_KEY);
const mppx = Mppx.create({
  polyfill: false,
  fetch: recording,
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

const preferences = process.env.ACCEPT_PAYMENT;
const response = await mppx.fetch(
  process.env.ESTUDIO_URL,
  preferences ? { headers: { "Accept-Payment": preferences } } : undefined,
);
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
    acceptPayment: sent,
    body: response.status === 200 ? null : text.slice(0, 2000),
  }),
);
