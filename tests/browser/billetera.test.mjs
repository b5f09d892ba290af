// The checkout of the pages, in real Chromium, paying on a real local chain.
//
// anvil runs Circle's USDC at Base Sepolia USDC's address (tests/chain/cadena.mjs); the
// project's facilitator settles there (`facilitador-local --rpc`, with the settler's key),
// behind a small proxy of this test that can refuse the next settlement or hold its answer
// past the gate's facilitator timeout; the gate sells a one-study build whose `base_url` is
// its own address (so the sign-in challenge names this page's host) and proves uncertain
// settlements on the chain (GATE_RPC_EIP155_84532).
//
// The wallet is the test's own: an EIP-1193 provider put in each page before its scripts run
// (evaluateOnNewDocument), announced by EIP-6963 (or as the legacy window.ethereum), whose
// requests go to this process (exposeFunction, as a wallet extension's go to its background):
// it signs with a test key through viem's privateKeyToAccount and forwards what it does not
// answer itself to anvil. It can reject a request (4001), refuse to switch networks, start on
// a network it does not know (4902, then wallet_addEthereumChain), and the page's clock can be
// set back so it signs a window the gate finds expired.
//
// Needs the debug binaries (generator, gate, facilitador-local, comprar) and `npm ci` in
// tests/chain (./tienda probar installs it before the Rust tests).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { encodeFunctionData, hexToString, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  BIN, DESKTOP, MOBILE, ROOT, TARGET, assertAccessible, assertClean, build, freePort, launchBrowser, oneStudyContent, openPage, requireBinaries, run, start, stop, waitFor,
} from "./comun.mjs";

const OUT = path.join(TARGET, "navegador-billetera");
const SHOTS = path.join(TARGET, "navegador", "capturas");
const CHAIN_DIR = path.join(ROOT, "tests", "chain");
const STUDY = "banca-2026";
const CHAIN_ID = 84532;
const NETWORK = `eip155:${CHAIN_ID}`;
/** The gate gives up on the facilitator after this many seconds; a held settlement answers later. */
const FACILITATOR_TIMEOUT_S = 3;
const HOLD_MS = 5_000;
const ERC20 = parseAbi(["function transfer(address to, uint256 value) returns (bool)", "function balanceOf(address) view returns (uint256)"]);

let chain; // cadena.mjs, its description in chain.info
let facilitator;
let proxy; // { server, url, next: [], settles }
let gate;
let base;
let browser;
let sheet;
let offer; // the EVM requirement of the study's 402

// ---------------------------------------------------------------------------------------
// The chain, read directly (never through the page or the wallet).

async function rpc(method, params) {
  const response = await fetch(chain.info.rpc, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const answer = await response.json();
  if (answer.error) {
    const error = new Error(answer.error.message);
    error.code = answer.error.code;
    throw error;
  }
  return answer.result;
}

async function usdcBalance(address) {
  const data = encodeFunctionData({ abi: ERC20, functionName: "balanceOf", args: [address] });
  return BigInt(await rpc("eth_call", [{ to: chain.info.asset, data }, "latest"]));
}

function account(role, nth = 0) {
  return chain.info.accounts.filter((a) => a.role === role)[nth];
}

// ---------------------------------------------------------------------------------------
// The test's wallet: the page's requests are answered here.

function walletError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

/** uint fields of a typed-data message as BigInt, the rest as given (viem's signTypedData wants that). */
function typedMessage(fields, message) {
  return Object.fromEntries(fields.map(({ name, type }) => [name, /^u?int\d*$/.test(type) ? BigInt(message[name]) : message[name]]));
}

class TestWallet {
  constructor(privateKey, { chainId = CHAIN_ID, knows = [CHAIN_ID], rejects = [], refuseSwitch = false } = {}) {
    this.account = privateKeyToAccount(privateKey);
    this.chainId = chainId;
    this.known = new Set(knows);
    this.rejects = new Set(rejects);
    this.refuseSwitch = refuseSwitch;
    this.calls = [];
    this.typed = [];
    this.messages = [];
    this.added = [];
  }

  get address() {
    return this.account.address;
  }

  methods() {
    return this.calls.map((c) => c.method);
  }

  async handle(method, params) {
    this.calls.push({ method, params });
    try {
      return { result: await this.answer(method, params || []) };
    } catch (error) {
      return { error: { code: error.code ?? -32603, message: error.message } };
    }
  }

  async answer(method, params) {
    if (this.rejects.has(method)) throw walletError(4001, "User rejected the request.");
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        // As MetaMask answers: lowercase, no checksum.
        return [this.address.toLowerCase()];
      case "eth_chainId":
        return `0x${this.chainId.toString(16)}`;
      case "wallet_switchEthereumChain": {
        const id = Number(BigInt(params[0].chainId));
        if (this.refuseSwitch) throw walletError(4001, "User rejected the request.");
        if (!this.known.has(id)) throw walletError(4902, `Unrecognized chain ID "${params[0].chainId}".`);
        this.chainId = id;
        return null;
      }
      case "wallet_addEthereumChain": {
        const id = Number(BigInt(params[0].chainId));
        if (id !== CHAIN_ID) throw walletError(-32603, "this wallet reaches only the test chain");
        this.added.push(params[0]);
        this.known.add(id);
        this.chainId = id;
        return null;
      }
      case "eth_signTypedData_v4": {
        const [from, json] = params;
        if (from.toLowerCase() !== this.address.toLowerCase()) throw walletError(4100, `unknown account ${from}`);
        const typed = JSON.parse(json);
        if (Number(typed.domain.chainId) !== this.chainId) {
          throw walletError(-32603, `Provided chainId "${typed.domain.chainId}" must match the active chainId "${this.chainId}"`);
        }
        this.typed.push(typed);
        const { EIP712Domain: _domain, ...types } = typed.types;
        return this.account.signTypedData({
          domain: typed.domain,
          types,
          primaryType: typed.primaryType,
          message: typedMessage(types[typed.primaryType], typed.message),
        });
      }
      case "personal_sign": {
        const [data, from] = params;
        if (from.toLowerCase() !== this.address.toLowerCase()) throw walletError(4100, `unknown account ${from}`);
        this.messages.push(hexToString(data));
        return this.account.signMessage({ message: { raw: data } });
      }
      default:
        if (this.chainId !== CHAIN_ID) throw walletError(-32603, `no node for chain ${this.chainId}`);
        return rpc(method, params);
    }
  }
}

/** Runs in the page before its scripts: the provider, announced by EIP-6963 or as window.ethereum. */
function injectProvider({ legacy, info }) {
  const listeners = new Map();
  const provider = {
    async request({ method, params }) {
      const answer = await window.__billeteraDePrueba(method, params === undefined ? null : params);
      if (answer.error) {
        const error = new Error(answer.error.message);
        error.code = answer.error.code;
        throw error;
      }
      if (method === "wallet_switchEthereumChain" || method === "wallet_addEthereumChain") {
        for (const listener of listeners.get("chainChanged") || []) listener(params[0].chainId);
      }
      return answer.result;
    },
    on(event, listener) {
      listeners.set(event, [...(listeners.get(event) || []), listener]);
      return provider;
    },
    removeListener(event, listener) {
      listeners.set(event, (listeners.get(event) || []).filter((l) => l !== listener));
      return provider;
    },
  };
  if (legacy) {
    window.ethereum = provider;
    return;
  }
  const announce = () =>
    window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
}

const ICON = "data:image/svg+xml;base64," + Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24" rx="5" fill="#7b3fe4"/></svg>').toString("base64");

/** A tab with `wallet` injected (and its clock moved by `clockOffsetMs`), recording what it sends. */
async function walletTab(wallet, { legacy = false, clockOffsetMs = 0, viewport = DESKTOP } = {}) {
  const tab = await openPage(browser, base, viewport);
  tab.sent = [];
  tab.page.on("request", (request) => {
    const headers = request.headers();
    if (headers["payment-signature"] || headers["sign-in-with-x"]) tab.sent.push({ url: request.url(), headers });
  });
  tab.offers = [];
  tab.page.on("response", async (response) => {
    const header = response.headers()["payment-required"];
    if (header && response.request().resourceType() === "fetch") tab.offers.push(JSON.parse(Buffer.from(header, "base64").toString("utf8")));
  });
  await tab.page.exposeFunction("__billeteraDePrueba", (method, params) => wallet.handle(method, params));
  await tab.page.evaluateOnNewDocument(injectProvider, { legacy, info: { uuid: crypto.randomUUID(), name: "Billetera de prueba", icon: ICON, rdns: "ar.estudios.prueba" } });
  if (clockOffsetMs) {
    await tab.page.evaluateOnNewDocument((offset) => {
      const realNow = Date.now;
      Date.now = () => realNow() + offset;
    }, clockOffsetMs);
  }
  return tab;
}

async function chooseView(page, view) {
  await page.click(`#billetera input[name="vista"][value="${view}"]`);
}

/** Presses a button of the checkout and waits until it is done (the buttons come back). */
async function press(page, which) {
  await page.waitForSelector(`#billetera [data-${which}]:not([disabled])`);
  await page.click(`#billetera [data-${which}]`);
  await page.waitForFunction(() => document.querySelector("#billetera [data-pagar]") && !document.querySelector("#billetera [data-pagar]").disabled, { timeout: 60_000 });
}

/** What the checkout shows: its alert (text, kind), its result and its pending-payment box. */
function checkoutState(page) {
  return page.evaluate(() => {
    const root = document.getElementById("billetera");
    const alert = root.querySelector("[data-aviso]");
    const result = root.querySelector("[data-resultado]");
    const pending = root.querySelector("[data-pendiente]");
    return {
      alert: alert.textContent.trim(),
      kind: alert.dataset.tipo || "",
      alertEnglish: [...alert.querySelectorAll("[lang=en]")].map((e) => e.textContent).join(" "),
      result: result.hidden ? "" : result.textContent,
      heading: result.querySelector("h3")?.textContent || "",
      links: [...result.querySelectorAll(".descargas li")].map((li) => ({
        href: li.querySelector("a").href,
        name: li.querySelector("a").getAttribute("download"),
        sha256: li.querySelector("code").textContent,
      })),
      transaction: result.querySelector("h3")?.dataset.transaccion || "",
      explorer: result.querySelector(".datos-compra a.hash")?.href || "",
      receipt: result.querySelector('a[download$=".recibo.json"]')?.getAttribute("download") || "",
      pending: !pending.hidden,
      pendingStored: Object.keys(sessionStorage).filter((k) => k.startsWith("x402-pago-pendiente:")),
    };
  });
}

// ---------------------------------------------------------------------------------------
// The facilitator's proxy: forwards, or refuses / holds the next settlement.

function startProxy(upstream) {
  const state = { next: [], settles: 0, held: [] };
  state.server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const mode = req.url === "/settle" ? state.next.shift() : undefined;
      if (req.url === "/settle") state.settles += 1;
      if (mode === "refuse") {
        // A refusal on a check made before anything is broadcast: nothing moved.
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ success: false, errorReason: "invalid_exact_evm_payload_signature", transaction: "", network: NETWORK }));
        return;
      }
      try {
        // Held: the settlement is sent on only after the gate gave up on it (and found nothing
        // on the chain), so the money moves while the gate's answer is uncertain.
        if (mode === "hold") await new Promise((r) => setTimeout(r, HOLD_MS));
        const answer = await fetch(upstream + req.url, { method: req.method, headers: { "content-type": "application/json" }, body: req.method === "POST" ? body : undefined });
        const text = await answer.text();
        if (mode === "hold") state.held.push(JSON.parse(text));
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") || "application/json" });
        res.end(text);
      } catch (error) {
        if (!res.destroyed) {
          res.writeHead(502);
          res.end(String(error));
        }
      }
    });
  });
  return new Promise((resolve) => state.server.listen(0, "127.0.0.1", () => {
    state.url = `http://127.0.0.1:${state.server.address().port}`;
    resolve(state);
  }));
}

// ---------------------------------------------------------------------------------------

function startChain() {
  const json = path.join(OUT, "cadena.json");
  const child = start(process.execPath, [path.join(CHAIN_DIR, "cadena.mjs"), "--json", json, "--buyers", "3", "--exit-on-stdin-close"]);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the chain did not start:\n${child.log}`)), 90_000);
    child.stdout.on("data", () => {
      if (/^listo$/m.test(child.log)) {
        clearTimeout(timer);
        child.info = JSON.parse(fs.readFileSync(json, "utf8"));
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`the chain exited with ${code}:\n${child.log}`)));
  });
}

before(async () => {
  requireBinaries(["generator", "gate", "facilitador-local", "comprar"]);
  assert.ok(fs.existsSync(path.join(CHAIN_DIR, "node_modules", "@foundry-rs", "anvil")), "missing tests/chain/node_modules: (cd tests/chain && npm ci)");
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  fs.mkdirSync(SHOTS, { recursive: true });
  chain = await startChain();

  const facilitatorPort = await freePort();
  facilitator = start(path.join(BIN, "facilitador-local"), ["--listen", `127.0.0.1:${facilitatorPort}`, "--rpc", chain.info.rpc, "--data", path.join(OUT, "facilitador"), "--threads", "1"], {
    GATE_LOG: "warn",
    GATE_SETTLER_KEY: account("settler").privateKey,
  });
  await waitFor(`http://127.0.0.1:${facilitatorPort}/supported`, facilitator);
  proxy = await startProxy(`http://127.0.0.1:${facilitatorPort}`);

  // One study, sold at the gate's own address: the sign-in challenge names this host.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const content = oneStudyContent(path.join(OUT, "contenido"), STUDY, base);
  build(content, path.join(OUT, "dist"));

  gate = start(path.join(BIN, "gate"), ["--dist", path.join(OUT, "dist"), "--listen", `127.0.0.1:${port}`, "--data", path.join(OUT, "var"), "--threads", "1", "--facilitador", proxy.url], {
    GATE_LOG: "warn",
    GATE_RPC_EIP155_84532: chain.info.rpc,
    GATE_FACILITATOR_TIMEOUT: String(FACILITATOR_TIMEOUT_S),
  });
  await waitFor(`${base}/catalogo`, gate);
  sheet = await (await fetch(`${base}/estudio/${STUDY}/ficha`)).json();
  const unpaid = await fetch(`${base}/estudio/${STUDY}?vista=resumen`, { headers: { Accept: "application/json" } });
  offer = JSON.parse(Buffer.from(unpaid.headers.get("payment-required"), "base64").toString("utf8")).accepts.find((a) => a.network === NETWORK);
  assert.equal(offer.payTo.toLowerCase(), account("pay_to").address.toLowerCase(), "the sample's payTo is the chain's pay_to");
  assert.equal(offer.asset.toLowerCase(), chain.info.asset.toLowerCase());
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  await stop(gate);
  if (proxy) proxy.server.close();
  await stop(facilitator);
  if (chain) {
    chain.stdin.end();
    await stop(chain);
  }
});

/** Waits until every download of `dir` is whole and returns the names. */
async function downloaded(dir, names) {
  const until = Date.now() + 30_000;
  for (;;) {
    const present = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    if (names.every((n) => present.includes(n)) && !present.some((n) => n.endsWith(".crdownload"))) return present;
    if (Date.now() > until) throw new Error(`downloads missing in ${dir}: ${present.join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("the study page buys the summary with a wallet: USDC moves on the chain, the page shows the downloads and the receipt", async () => {
  const buyer = account("buyer", 0);
  const wallet = new TestWallet(buyer.privateKey);
  const [payToBefore, buyerBefore] = [await usdcBalance(offer.payTo), await usdcBalance(buyer.address)];
  const tab = await walletTab(wallet);
  const response = await tab.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  const csp = response.headers()["content-security-policy"];
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /connect-src 'self'/);
  assert.equal(await tab.page.$eval("#billetera [data-sin-script]", (p) => p.hidden), true, "the script hides the no-script text");
  assert.equal(await tab.page.$eval("#billetera .opcion-billetera", (l) => l.textContent.trim()), "Billetera de prueba", "the wallet announced by EIP-6963 is listed");
  await chooseView(tab.page, "resumen");
  await press(tab.page, "pagar");
  const state = await checkoutState(tab.page);
  assert.equal(state.alert, "", `no refusal: ${state.alert}`);
  assert.equal(state.heading, "Compra confirmada", state.result);

  // The money moved on the chain, by the price, once.
  const price = BigInt(offer.amount);
  assert.equal(await usdcBalance(offer.payTo), payToBefore + price, "payTo received the price");
  assert.equal(await usdcBalance(buyer.address), buyerBefore - price, "the buyer paid the price");
  const receipt = await rpc("eth_getTransactionReceipt", [state.transaction]);
  assert.equal(receipt.status, "0x1");
  assert.equal(receipt.to.toLowerCase(), chain.info.asset.toLowerCase());
  assert.equal(state.explorer, `https://sepolia.basescan.org/tx/${state.transaction}`, "the transaction on Base Sepolia's explorer");

  // What the wallet signed: EIP-3009 under the requirement's domain, as @x402/evm signs it.
  assert.deepEqual(wallet.methods().filter((m) => !m.startsWith("eth_c")), ["eth_requestAccounts", "eth_signTypedData_v4"]);
  assert.ok(wallet.calls.some((c) => c.method === "eth_call" && c.params[0].data.startsWith("0x70a08231")), "the balance is read through the wallet before signing");
  const [typed] = wallet.typed;
  assert.equal(typed.primaryType, "TransferWithAuthorization");
  assert.deepEqual(typed.domain, { name: offer.extra.name, version: offer.extra.version, chainId: CHAIN_ID, verifyingContract: chain.info.asset });
  const now = Math.floor(Date.now() / 1000);
  assert.equal(typed.message.from, buyer.address, "from with its EIP-55 checksum");
  assert.equal(typed.message.to, account("pay_to").address, "to with its EIP-55 checksum");
  assert.equal(typed.message.value, offer.amount);
  assert.equal(typed.message.validAfter, "0");
  assert.ok(Math.abs(Number(typed.message.validBefore) - (now + offer.maxTimeoutSeconds)) < 30, `validBefore ${typed.message.validBefore}`);
  assert.match(typed.message.nonce, /^0x[0-9a-f]{64}$/);

  // What the page sent: @x402/fetch's payload, field for field.
  const [sent] = tab.sent;
  const payload = JSON.parse(Buffer.from(sent.headers["payment-signature"], "base64").toString("utf8"));
  assert.deepEqual(Object.keys(payload), ["x402Version", "payload", "extensions", "resource", "accepted"]);
  const required = tab.offers.at(-1);
  assert.equal(payload.x402Version, 2);
  assert.deepEqual(payload.accepted, required.accepts.find((a) => a.network === NETWORK));
  assert.deepEqual(payload.resource, required.resource);
  assert.deepEqual(payload.extensions, required.extensions);
  assert.deepEqual(payload.payload.authorization, typed.message);
  assert.match(payload.payload.signature, /^0x[0-9a-f]{130}$/);
  assert.equal(new URL(sent.url).search, "?vista=resumen");

  // The downloads with their sha256 and the receipt, downloaded as a person would.
  assert.deepEqual(state.links.map((l) => l.sha256), [sheet.archivos.json.sha256, sheet.archivos.zip.sha256]);
  assert.equal(state.receipt, `${STUDY}.resumen.recibo.json`);
  const folder = path.join(OUT, "descargas");
  const cdp = await tab.page.createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: folder });
  await tab.page.click('#billetera a[download$=".recibo.json"]');
  for (const link of state.links) await tab.page.click(`#billetera .descargas a[download="${link.name}"]`);
  await downloaded(folder, [state.receipt, ...state.links.map((l) => l.name)]);
  for (const link of state.links) {
    const bytes = fs.readFileSync(path.join(folder, link.name));
    assert.equal(crypto.createHash("sha256").update(bytes).digest("hex"), link.sha256, link.name);
  }
  const check = run(path.join(BIN, "comprar"), ["verificar-recibo", path.join(folder, state.receipt), "--archivos", folder]);
  assert.equal(check.status, 0, `comprar verificar-recibo:\n${check.stdout}${check.stderr}`);

  assert.match(state.result, /hallazgos/);
  await assertClean(tab, "checkout, purchase");
  await assertAccessible(tab.page, "checkout, purchase shown");
  await (await tab.page.$("#billetera")).screenshot({ path: path.join(SHOTS, `billetera-compra-${STUDY}.png`) });
  await tab.page.close();
});

test("the browser 402 buys the full view from a wallet on another network: it adds Base Sepolia and pays", async () => {
  const buyer = account("buyer", 0);
  const wallet = new TestWallet(buyer.privateKey, { chainId: 1, knows: [1] });
  const payToBefore = await usdcBalance(offer.payTo);
  const tab = await walletTab(wallet, { viewport: MOBILE });
  const response = await tab.page.goto(`${base}/estudio/${STUDY}?vista=completo`, { waitUntil: "networkidle0" });
  assert.equal(response.status(), 402);
  assert.doesNotMatch(response.headers()["content-security-policy"], /unsafe-inline|unsafe-eval/);
  assert.equal(await tab.page.$eval('#billetera input[value="completo"]', (i) => i.checked), true, "the view of the address is chosen");
  await press(tab.page, "pagar");
  const state = await checkoutState(tab.page);
  assert.equal(state.alert, "", `no refusal: ${state.alert}`);
  assert.equal(state.heading, "Compra confirmada");
  assert.equal(await usdcBalance(offer.payTo), payToBefore + BigInt(offer.amount), "payTo received the price again");
  const switched = wallet.calls.filter((c) => c.method.startsWith("wallet_"));
  assert.deepEqual(switched.map((c) => c.method), ["wallet_switchEthereumChain", "wallet_addEthereumChain"]);
  assert.deepEqual(switched[0].params, [{ chainId: "0x14a34" }]);
  assert.equal(wallet.added[0].chainName, "Base Sepolia");
  assert.deepEqual(wallet.added[0].blockExplorerUrls, ["https://sepolia.basescan.org"]);
  assert.match(state.result, /Paquete completo: \d+ tablas de análisis, [\d.]+ respuestas originales/);
  assert.equal(state.receipt, `${STUDY}.completo.recibo.json`);
  const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the result scrolls sideways on a phone by ${overflow}px`);
  await assertClean(tab, "checkout, 402 page");
  await (await tab.page.$("#billetera")).screenshot({ path: path.join(SHOTS, `billetera-402-movil-${STUDY}.png`) });
  await tab.page.close();
});

/** One refusal: the wallet set up as `options`, the page's message, and no money moved. */
async function refusal({ wallet, tabOptions = {}, before: prepare, expect, kind, english, view = "resumen", sentToGate }) {
  const payToBefore = await usdcBalance(offer.payTo);
  const tab = await walletTab(wallet, tabOptions);
  if (prepare) prepare();
  await tab.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  await chooseView(tab.page, view);
  await press(tab.page, "pagar");
  const state = await checkoutState(tab.page);
  assert.match(state.alert, expect);
  assert.equal(state.kind, kind);
  assert.match(state.alertEnglish, english);
  assert.equal(state.result, "", "nothing is shown as bought");
  assert.equal(await usdcBalance(offer.payTo), payToBefore, "no money moved");
  assert.equal(tab.sent.length, sentToGate, "payments sent to the gate");
  assert.equal(state.pending, false, "no payment is kept");
  await assertClean(tab, `refusal ${kind}`);
  if (kind === "saldo") await assertAccessible(tab.page, "checkout, a refusal shown");
  await (await tab.page.$("#billetera")).screenshot({ path: path.join(SHOTS, `billetera-${kind}.png`) });
  await tab.page.close();
  return { state, wallet };
}

test("refusals: the wallet says no, the wrong network, too little USDC, an expired window, the facilitator refusing", async (t) => {
  const buyer = account("buyer", 1);
  await t.test("the wallet rejects the signature (4001)", async () => {
    const { wallet } = await refusal({
      wallet: new TestWallet(buyer.privateKey, { rejects: ["eth_signTypedData_v4"] }),
      expect: /Rechazó el pedido en la billetera: no se firmó ni se cobró nada/,
      english: /You rejected the request/,
      kind: "rechazada",
      sentToGate: 0,
    });
    assert.ok(wallet.methods().includes("eth_signTypedData_v4"));
  });
  await t.test("the wallet refuses to connect (4001)", async () => {
    await refusal({
      wallet: new TestWallet(buyer.privateKey, { rejects: ["eth_requestAccounts"] }),
      expect: /Rechazó el pedido en la billetera/,
      english: /You rejected/,
      kind: "rechazada",
      sentToGate: 0,
    });
  });
  await t.test("the wallet stays on another network (legacy window.ethereum)", async () => {
    const { wallet } = await refusal({
      wallet: new TestWallet(buyer.privateKey, { chainId: 1, knows: [1, CHAIN_ID], refuseSwitch: true }),
      tabOptions: { legacy: true },
      expect: /La billetera está en otra red \(cadena 1\); este pago es en Base Sepolia \(cadena 84532\)/,
      english: /on another network \(chain 1\)/,
      kind: "red",
      sentToGate: 0,
    });
    assert.ok(!wallet.methods().includes("eth_signTypedData_v4"), "nothing signed on the wrong network");
  });
  await t.test("the wallet holds too little USDC", async () => {
    const key = generatePrivateKey();
    const poor = privateKeyToAccount(key);
    const funder = account("buyer", 2);
    const data = encodeFunctionData({ abi: ERC20, functionName: "transfer", args: [poor.address, 500_000n] });
    const hash = await rpc("eth_sendTransaction", [{ from: funder.address, to: chain.info.asset, data }]);
    assert.equal((await rpc("eth_getTransactionReceipt", [hash])).status, "0x1");
    const { wallet } = await refusal({
      wallet: new TestWallet(key),
      expect: /Saldo insuficiente: la cuenta 0x[0-9a-fA-F]{40} tiene 0,50 USDC en Base Sepolia y el estudio cuesta 0,99 USDC/,
      english: /Not enough USDC/,
      kind: "saldo",
      sentToGate: 0,
    });
    assert.ok(!wallet.methods().includes("eth_signTypedData_v4"), "nothing signed without the balance");
  });
  await t.test("the authorization's window has expired (the computer's clock is an hour behind)", async () => {
    const { state } = await refusal({
      wallet: new TestWallet(buyer.privateKey),
      tabOptions: { clockOffsetMs: -3_600_000 },
      expect: /La autorización de pago venció o todavía no vale: .+ No se cobró nada/,
      english: /expired/,
      kind: "vencida",
      sentToGate: 1,
    });
    assert.match(state.alert, /Código: invalid_exact_evm_payload_authorization_valid_before/);
  });
  await t.test("the facilitator refuses the settlement", async () => {
    const settles = proxy.settles;
    await refusal({
      wallet: new TestWallet(buyer.privateKey),
      before: () => proxy.next.push("refuse"),
      expect: /Pago rechazado: El facilitador no liquidó el pago .+ No se cobró nada/,
      english: /Payment refused/,
      kind: "rechazado",
      sentToGate: 1,
    });
    assert.equal(proxy.settles, settles + 1);
  });
});

test("an uncertain settlement keeps the signed payment: the same signature is sent again and the money moves once", async () => {
  const buyer = account("buyer", 1);
  const wallet = new TestWallet(buyer.privateKey);
  const [payToBefore, buyerBefore] = [await usdcBalance(offer.payTo), await usdcBalance(buyer.address)];
  const tab = await walletTab(wallet);
  proxy.next.push("hold");
  await tab.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  await chooseView(tab.page, "completo");
  await press(tab.page, "pagar");
  let state = await checkoutState(tab.page);
  assert.equal(state.kind, "incierta", state.alert);
  assert.match(state.alert, /Liquidación incierta: .+ No firme otro pago\. Pulse «Reintentar con la misma firma»/);
  assert.match(state.alertEnglish, /Uncertain settlement/);
  assert.equal(state.pending, true, "the retry button is offered");
  await assertAccessible(tab.page, "checkout, an uncertain settlement");
  assert.deepEqual(state.pendingStored, [`x402-pago-pendiente:/estudio/${STUDY}?vista=completo`]);
  // The held settlement goes through on the chain after the gate gave up on it.
  const until = Date.now() + 30_000;
  while (proxy.held.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  assert.equal(proxy.held[0]?.success, true, `the held settlement: ${JSON.stringify(proxy.held)}`);
  assert.equal(await usdcBalance(offer.payTo), payToBefore + BigInt(offer.amount), "the first attempt moved the money");

  // A reload keeps it; paying again signs nothing new.
  await tab.page.reload({ waitUntil: "networkidle0" });
  await chooseView(tab.page, "completo");
  assert.equal((await checkoutState(tab.page)).pending, true, "kept across a reload (sessionStorage)");
  await press(tab.page, "pagar");
  state = await checkoutState(tab.page);
  assert.equal(state.kind, "pendiente");
  assert.equal(wallet.typed.length, 1, "no second payment signed");

  await press(tab.page, "reintentar");
  state = await checkoutState(tab.page);
  assert.equal(state.alert, "", state.alert);
  assert.equal(state.heading, "Compra confirmada");
  assert.equal(state.pending, false);
  assert.deepEqual(state.pendingStored, []);
  assert.equal(tab.sent.length, 2, "sent twice: the first attempt and the retry");
  const signatures = new Set(tab.sent.map((s) => s.headers["payment-signature"]));
  assert.equal(signatures.size, 1, "every attempt carried the same signature");
  assert.equal(await usdcBalance(offer.payTo), payToBefore + BigInt(offer.amount), "charged once");
  assert.equal(await usdcBalance(buyer.address), buyerBefore - BigInt(offer.amount), "the buyer paid once");
  await assertClean(tab, "uncertain settlement");
  await tab.page.close();
});

test("a past buyer signs in with the wallet and gets the study again without a second transfer", async () => {
  const buyer = account("buyer", 0);
  const wallet = new TestWallet(buyer.privateKey);
  const [payToBefore, buyerBefore] = [await usdcBalance(offer.payTo), await usdcBalance(buyer.address)];
  const tab = await walletTab(wallet);
  await tab.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  await chooseView(tab.page, "resumen");
  await press(tab.page, "ingresar");
  const state = await checkoutState(tab.page);
  assert.equal(state.alert, "", state.alert);
  assert.equal(state.heading, "Estudio recuperado, sin cobro");
  assert.deepEqual(state.links.map((l) => l.sha256), [sheet.archivos.json.sha256, sheet.archivos.zip.sha256]);
  assert.equal(state.receipt, `${STUDY}.resumen.recibo.json`, "the view bought comes with its receipt");
  assert.equal(await usdcBalance(offer.payTo), payToBefore, "no second transfer");
  assert.equal(await usdcBalance(buyer.address), buyerBefore);
  assert.ok(!wallet.methods().includes("eth_signTypedData_v4"), "no payment signed");

  // The EIP-4361 message the wallet signed, and the proof sent.
  const [message] = wallet.messages;
  const host = new URL(base).host;
  assert.ok(message.startsWith(`${host} wants you to sign in with your Ethereum account:\n${buyer.address}\n\n`), message);
  assert.match(message, new RegExp(`\\nURI: ${base}/estudio/${STUDY}\\?vista=resumen\\nVersion: 1\\nChain ID: ${CHAIN_ID}\\nNonce: [0-9a-f]{32}\\nIssued At: `));
  const proof = JSON.parse(Buffer.from(tab.sent[0].headers["sign-in-with-x"], "base64").toString("utf8"));
  assert.equal(proof.address, buyer.address);
  assert.equal(proof.chainId, NETWORK);
  assert.equal(proof.type, "eip191");
  await assertClean(tab, "sign-in");
  await tab.page.close();

  // A wallet that never bought is told so, and nothing moves.
  const stranger = new TestWallet(generatePrivateKey());
  const other = await walletTab(stranger);
  await other.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  await press(other.page, "ingresar");
  const refused = await checkoutState(other.page);
  assert.equal(refused.kind, "sin_compra");
  assert.match(refused.alert, /Esta billetera \(0x[0-9a-fA-F]{40}\) no compró este estudio en Base Sepolia/);
  assert.equal(await usdcBalance(offer.payTo), payToBefore);
  await assertClean(other, "sign-in refused");
  await other.page.close();
});

test("without JavaScript the checkout says how else to buy; without a wallet it says so", async () => {
  const tab = await openPage(browser, base);
  await tab.page.setJavaScriptEnabled(false);
  await tab.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  const shown = await tab.page.evaluate(() => ({
    noScript: !document.querySelector("#billetera [data-sin-script]").hidden,
    box: !document.querySelector("#billetera [data-caja]").hidden,
    buy: document.querySelector("#comprar").textContent.includes("@x402/fetch"),
  }));
  assert.deepEqual(shown, { noScript: true, box: false, buy: true });
  await tab.page.close();

  const bare = await openPage(browser, base);
  await bare.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  await bare.page.waitForSelector("#billetera .sin-billetera");
  assert.match(await bare.page.$eval("#billetera .sin-billetera", (e) => e.textContent), /No se encontró ninguna billetera/);
  await assertClean(bare, "no wallet");
  await bare.page.close();
});
