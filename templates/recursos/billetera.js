// The checkout of a study page and of the browser's 402: pay with a browser wallet, or get a
// study bought before again by signing in with the same wallet. Plain DOM, no framework, no
// other host: the page speaks only to this service (`connect-src 'self'`) and to the wallet
// (EIP-1193), which signs; the page never holds a key. Without this script (or without a
// wallet) the page still says how to buy with an agent.
//
// The purchase speaks x402 v2 exactly as the official client (`@x402/fetch` with `@x402/evm`):
//   1. GET the study with `Accept: application/json` → 402 with `PAYMENT-REQUIRED` (base64 JSON);
//   2. the wallet, found by EIP-6963 (the legacy `window.ethereum` when none announces), is
//      connected (`eth_requestAccounts`) and put on the network of the chosen requirement
//      (`wallet_switchEthereumChain`, then `wallet_addEthereumChain` on 4902);
//   3. its USDC balance is read through the wallet (`eth_call` of `balanceOf`);
//   4. it signs the EIP-3009 `TransferWithAuthorization` with `eth_signTypedData_v4` under the
//      domain the requirement names (`extra.name`, `extra.version`, chain id, the asset);
//   5. the same GET again with `PAYMENT-SIGNATURE` (base64 of the payload's JSON).
// The signed payment is kept in sessionStorage until the service answers for certain: an
// uncertain settlement (503 `liquidacion_incierta`) is repeated with the same signature, never
// a new one. Sign-in is x402's `sign-in-with-x`: the EIP-4361 message of the 402's challenge,
// signed with `personal_sign`, sent in `SIGN-IN-WITH-X`.

(function () {
  "use strict";

  // ---------------------------------------------------------------------------------------
  // Keccak-256 and EIP-55: the addresses in an EIP-4361 message and in the authorization are
  // written with their checksum, as the official clients write them.

  const MASK = (1n << 64n) - 1n;
  const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
  const ROUND_CONSTANTS = [
    "0000000000000001", "0000000000008082", "800000000000808a", "8000000080008000", "000000000000808b",
    "0000000080000001", "8000000080008081", "8000000000008009", "000000000000008a", "0000000000000088",
    "0000000080008009", "000000008000000a", "000000008000808b", "800000000000008b", "8000000000008089",
    "8000000000008003", "8000000000008002", "8000000000000080", "000000000000800a", "800000008000000a",
    "8000000080008081", "8000000000008080", "0000000080000001", "8000000080008008",
  ].map((hex) => BigInt("0x" + hex));

  function rotate(lane, bits) {
    return bits === 0 ? lane : ((lane << BigInt(bits)) | (lane >> BigInt(64 - bits))) & MASK;
  }

  function keccakF(state) {
    const b = new Array(25);
    const c = new Array(5);
    for (const constant of ROUND_CONSTANTS) {
      for (let x = 0; x < 5; x++) c[x] = state[x] ^ state[x + 5] ^ state[x + 10] ^ state[x + 15] ^ state[x + 20];
      for (let x = 0; x < 5; x++) {
        const d = c[(x + 4) % 5] ^ rotate(c[(x + 1) % 5], 1);
        for (let y = 0; y < 25; y += 5) state[x + y] ^= d;
      }
      for (let x = 0; x < 5; x++) {
        for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotate(state[x + 5 * y], ROTATIONS[x + 5 * y]);
      }
      for (let y = 0; y < 25; y += 5) {
        for (let x = 0; x < 5; x++) state[x + y] = b[x + y] ^ (~b[((x + 1) % 5) + y] & MASK & b[((x + 2) % 5) + y]);
      }
      state[0] ^= constant;
    }
  }

  /** Keccak-256 (Ethereum's, with the original 0x01 padding) of bytes, as 64 hex digits. */
  function keccak256(bytes) {
    const rate = 136;
    const padded = new Uint8Array((Math.floor(bytes.length / rate) + 1) * rate);
    padded.set(bytes);
    padded[bytes.length] ^= 0x01;
    padded[padded.length - 1] ^= 0x80;
    const state = new Array(25).fill(0n);
    for (let offset = 0; offset < padded.length; offset += rate) {
      for (let i = 0; i < rate / 8; i++) {
        let lane = 0n;
        for (let k = 7; k >= 0; k--) lane = (lane << 8n) | BigInt(padded[offset + 8 * i + k]);
        state[i] ^= lane;
      }
      keccakF(state);
    }
    let hex = "";
    for (let i = 0; i < 4; i++) {
      for (let k = 0; k < 8; k++) hex += Number((state[i] >> BigInt(8 * k)) & 0xffn).toString(16).padStart(2, "0");
    }
    return hex;
  }

  /** An address with its EIP-55 checksum; throws on anything that is not 20 bytes of hex. */
  function checksumAddress(address) {
    if (typeof address !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error("dirección inválida: " + address);
    const lower = address.slice(2).toLowerCase();
    const hash = keccak256(new TextEncoder().encode(lower));
    let out = "0x";
    for (let i = 0; i < 40; i++) out += parseInt(hash[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
    return out;
  }

  // ---------------------------------------------------------------------------------------
  // What the checkout knows about networks, and the wire helpers.

  /** The EVM networks the service sells on: their names, explorers and what a wallet needs to add them. */
  const NETWORKS = {
    "eip155:8453": {
      name: "Base",
      explorer: "https://basescan.org",
      add: { chainId: "0x2105", chainName: "Base", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: ["https://mainnet.base.org"], blockExplorerUrls: ["https://basescan.org"] },
    },
    "eip155:84532": {
      name: "Base Sepolia",
      explorer: "https://sepolia.basescan.org",
      add: { chainId: "0x14a34", chainName: "Base Sepolia", nativeCurrency: { name: "Sepolia Ether", symbol: "ETH", decimals: 18 }, rpcUrls: ["https://sepolia.base.org"], blockExplorerUrls: ["https://sepolia.basescan.org"] },
    },
  };

  function networkName(caip2) {
    return NETWORKS[caip2]?.name || caip2;
  }

  function chainIdOf(caip2) {
    const match = /^eip155:(\d+)$/.exec(caip2 || "");
    return match ? Number(match[1]) : null;
  }

  /** Standard padded base64 of a string's UTF-8 bytes (what the official clients send). */
  function base64Json(value) {
    const bytes = new TextEncoder().encode(JSON.stringify(value));
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary);
  }

  function fromBase64Json(text) {
    const binary = atob(text);
    const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  function hexOf(bytes) {
    return "0x" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** USDC atomic units (6 decimals) as "0,99". */
  function usdc(units) {
    const value = BigInt(units);
    const whole = value / 1000000n;
    const cents = (value % 1000000n).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
    return whole.toLocaleString("es-AR") + "," + cents;
  }

  function bytesText(n) {
    if (n < 1000) return n + " B";
    const units = ["kB", "MB", "GB"];
    let value = n;
    let unit = -1;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit += 1;
    }
    return value.toLocaleString("es-AR", { maximumFractionDigits: 1 }) + " " + units[unit];
  }

  // ---------------------------------------------------------------------------------------
  // Refusals, said plainly: Spanish first, English beside it.

  class Refusal extends Error {
    constructor(es, en, options = {}) {
      super(es);
      this.en = en;
      this.detail = options.detail || "";
      this.kind = options.kind || "rechazo";
    }
  }

  const REJECTED = () =>
    new Refusal(
      "Rechazó el pedido en la billetera: no se firmó ni se cobró nada.",
      "You rejected the request in your wallet: nothing was signed or charged.",
      { kind: "rechazada" },
    );

  /** A wallet's error as a refusal: 4001 is the person saying no. */
  function walletRefusal(error, what) {
    if (error instanceof Refusal) return error;
    if (error && error.code === 4001) return REJECTED();
    if (error && error.code === -32002) {
      return new Refusal(
        "La billetera ya tiene un pedido abierto: ábrala, respóndalo y vuelva a intentar.",
        "Your wallet already has a request open: open it, answer it and try again.",
      );
    }
    const reason = error && error.message ? error.message : String(error);
    return new Refusal(`La billetera no pudo ${what}: ${reason}`, `The wallet could not ${what === "firmar" ? "sign" : "answer"}: ${reason}`);
  }

  // ---------------------------------------------------------------------------------------
  // Wallets: EIP-6963 announcements, the legacy `window.ethereum` when nobody announces.

  const announced = new Map();

  function listenForWallets(onChange) {
    window.addEventListener("eip6963:announceProvider", (event) => {
      const detail = event.detail;
      if (!detail || !detail.info || !detail.provider || typeof detail.provider.request !== "function") return;
      const key = detail.info.uuid || detail.info.rdns || detail.info.name;
      if (announced.has(key)) return;
      announced.set(key, { info: detail.info, provider: detail.provider });
      onChange();
    });
    window.dispatchEvent(new Event("eip6963:requestProvider"));
  }

  function wallets() {
    const found = [...announced.values()];
    if (found.length === 0 && window.ethereum && typeof window.ethereum.request === "function") {
      found.push({ info: { name: "Billetera del navegador", icon: "", rdns: "", uuid: "window.ethereum" }, provider: window.ethereum });
    }
    return found;
  }

  // ---------------------------------------------------------------------------------------
  // The service's side: the 402, the purchase, the sign-in.

  /** The study view's 402: the requirements object and the EVM `exact` requirement to pay. */
  async function fetchOffer(url) {
    let response;
    try {
      response = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
    } catch {
      throw new Refusal("No se pudo hablar con el servicio. Revise la conexión y vuelva a intentar.", "Could not reach the service. Check your connection and try again.");
    }
    const header = response.headers.get("PAYMENT-REQUIRED");
    if (response.status !== 402 || !header) {
      const body = await response.json().catch(() => null);
      throw new Refusal(
        `El servicio no ofreció el pago (${response.status}): ${(body && body.mensaje) || "respuesta inesperada"}.`,
        `The service did not offer the payment (${response.status}).`,
      );
    }
    const required = fromBase64Json(header);
    const requirement = (required.accepts || []).find((a) => a.scheme === "exact" && chainIdOf(a.network) !== null);
    if (!requirement) {
      throw new Refusal("Este estudio no se vende en una red EVM: pague con un agente (vea abajo).", "This study is not sold on an EVM network: pay with an agent (see below).");
    }
    if (!requirement.extra || !requirement.extra.name || !requirement.extra.version) {
      throw new Refusal("El 402 no dice el dominio EIP-712 del activo (extra.name y extra.version).", "The 402 does not name the asset's EIP-712 domain.");
    }
    return { required, requirement };
  }

  /** The wallet's first account, connected by EIP-1193. */
  async function connect(provider) {
    let accounts;
    try {
      accounts = await provider.request({ method: "eth_requestAccounts" });
    } catch (error) {
      throw walletRefusal(error, "conectarse");
    }
    if (!Array.isArray(accounts) || !accounts[0]) {
      throw new Refusal("La billetera no compartió ninguna cuenta.", "The wallet shared no account.");
    }
    return checksumAddress(accounts[0]);
  }

  /** Puts the wallet on the requirement's network: switch, or add it (4902) and switch. */
  async function selectNetwork(provider, caip2) {
    const wanted = chainIdOf(caip2);
    const wantedHex = "0x" + wanted.toString(16);
    const current = async () => Number(BigInt(await provider.request({ method: "eth_chainId" })));
    if ((await current()) === wanted) return;
    const wrong = async () => {
      const now = await current().catch(() => null);
      return new Refusal(
        `La billetera está en otra red${now ? ` (cadena ${now})` : ""}; este pago es en ${networkName(caip2)} (cadena ${wanted}). Cambie de red en la billetera y vuelva a intentar.`,
        `Your wallet is on another network${now ? ` (chain ${now})` : ""}; this payment is on ${networkName(caip2)} (chain ${wanted}). Switch networks in your wallet and try again.`,
        { kind: "red" },
      );
    };
    try {
      await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: wantedHex }] });
    } catch (error) {
      const unknown = error && (error.code === 4902 || (error.data && error.data.originalError && error.data.originalError.code === 4902));
      if (!unknown) throw error && error.code === 4001 ? await wrong() : walletRefusal(error, "cambiar de red");
      const params = NETWORKS[caip2] && NETWORKS[caip2].add;
      if (!params) throw await wrong();
      try {
        await provider.request({ method: "wallet_addEthereumChain", params: [params] });
      } catch (added) {
        throw added && added.code === 4001 ? await wrong() : walletRefusal(added, "agregar la red");
      }
    }
    if ((await current()) !== wanted) throw await wrong();
  }

  /** USDC held by `address`, read through the wallet's own node. */
  async function balanceOf(provider, asset, address) {
    const data = "0x70a08231" + address.slice(2).toLowerCase().padStart(64, "0");
    let result;
    try {
      result = await provider.request({ method: "eth_call", params: [{ to: asset, data }, "latest"] });
    } catch (error) {
      throw walletRefusal(error, "leer el saldo de USDC");
    }
    return BigInt(result && result !== "0x" ? result : "0x0");
  }

  /** The EIP-3009 authorization, signed as `@x402/evm`'s client signs it, and its payload. */
  async function signPayment(provider, from, required, requirement) {
    const nonce = hexOf(crypto.getRandomValues(new Uint8Array(32)));
    const now = Math.floor(Date.now() / 1000);
    const authorization = {
      from,
      to: checksumAddress(requirement.payTo),
      value: requirement.amount,
      validAfter: "0",
      validBefore: String(now + requirement.maxTimeoutSeconds),
      nonce,
    };
    const typedData = {
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "TransferWithAuthorization",
      domain: {
        name: requirement.extra.name,
        version: requirement.extra.version,
        chainId: chainIdOf(requirement.network),
        verifyingContract: checksumAddress(requirement.asset),
      },
      message: authorization,
    };
    let signature;
    try {
      signature = await provider.request({ method: "eth_signTypedData_v4", params: [from, JSON.stringify(typedData)] });
    } catch (error) {
      throw walletRefusal(error, "firmar");
    }
    if (Math.floor(Date.now() / 1000) + 6 >= Number(authorization.validBefore)) {
      throw new Refusal(
        "La autorización venció antes de enviarse (la firma tardó más de lo que el servicio acepta). No se cobró nada: vuelva a pagar.",
        "The authorization expired before it was sent (signing took longer than the service allows). Nothing was charged: pay again.",
        { kind: "vencida" },
      );
    }
    // Field order as @x402/core's client builds it: x402Version, payload, extensions, resource, accepted.
    const payload = {
      x402Version: required.x402Version,
      payload: { authorization, signature },
      extensions: required.extensions,
      resource: required.resource,
      accepted: requirement,
    };
    return { header: base64Json(payload), validBefore: Number(authorization.validBefore), nonce };
  }

  /** The EIP-4361 message of a sign-in-with-x proof, as the `siwe` library writes it. */
  function siweMessage(proof, chainId) {
    let text = `${proof.domain} wants you to sign in with your Ethereum account:\n${proof.address}\n\n`;
    text += proof.statement ? `${proof.statement}\n\n` : "\n";
    const lines = [`URI: ${proof.uri}`, `Version: ${proof.version}`, `Chain ID: ${chainId}`, `Nonce: ${proof.nonce}`];
    if (proof.issuedAt) lines.push(`Issued At: ${proof.issuedAt}`);
    if (proof.expirationTime) lines.push(`Expiration Time: ${proof.expirationTime}`);
    if (proof.notBefore) lines.push(`Not Before: ${proof.notBefore}`);
    if (proof.requestId !== undefined) lines.push(`Request ID: ${proof.requestId}`);
    if (proof.resources) lines.push(["Resources:", ...proof.resources.map((r) => `- ${r}`)].join("\n"));
    return text + lines.join("\n");
  }

  /** Signs the 402's sign-in-with-x challenge with the wallet: the header's value. */
  async function signIn(provider, address, required, network) {
    const extension = required.extensions && required.extensions["sign-in-with-x"];
    const info = extension && extension.info;
    const chain = extension && (extension.supportedChains || []).find((c) => c.type === "eip191" && c.chainId === network);
    if (!info || !chain) {
      throw new Refusal("Este 402 no ofrece ingresar con la billetera en esta red.", "This 402 offers no wallet sign-in on this network.");
    }
    // The challenge must be this site's, as a wallet would check: never sign one for another.
    const uri = new URL(info.uri, window.location.href);
    if (info.domain !== window.location.host || uri.origin !== window.location.origin) {
      throw new Refusal(
        `El desafío de ingreso es de ${info.domain}, no de esta página (${window.location.host}): no se firma.`,
        `The sign-in challenge is for ${info.domain}, not this page (${window.location.host}): not signed.`,
      );
    }
    const proof = {
      domain: info.domain,
      address,
      statement: info.statement,
      uri: info.uri,
      version: info.version || "1",
      chainId: chain.chainId,
      type: "eip191",
      nonce: info.nonce,
      issuedAt: info.issuedAt,
      expirationTime: info.expirationTime,
      notBefore: info.notBefore,
      requestId: info.requestId,
      resources: info.resources,
    };
    const message = siweMessage(proof, chainIdOf(chain.chainId));
    try {
      proof.signature = await provider.request({ method: "personal_sign", params: [hexOf(new TextEncoder().encode(message)), address] });
    } catch (error) {
      throw walletRefusal(error, "firmar");
    }
    return base64Json(proof);
  }

  // ---------------------------------------------------------------------------------------
  // The signed payment awaiting a certain answer, kept for the tab's life.

  const PENDING = "x402-pago-pendiente:";

  function loadPending(url) {
    try {
      const entry = JSON.parse(sessionStorage.getItem(PENDING + url) || "null");
      return entry && entry.header ? entry : null;
    } catch {
      return null;
    }
  }

  function savePending(url, entry) {
    try {
      sessionStorage.setItem(PENDING + url, JSON.stringify(entry));
    } catch {
      // Storage refused (private mode, full): the retry button of this page still holds it.
    }
  }

  function clearPending(url) {
    try {
      sessionStorage.removeItem(PENDING + url);
    } catch {
      // nothing kept
    }
  }

  // ---------------------------------------------------------------------------------------
  // The page.

  function element(tag, text, attributes = {}) {
    const node = document.createElement(tag);
    if (text) node.textContent = text;
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    return node;
  }

  /** A Spanish paragraph and its English line. */
  function bilingual(es, en, className) {
    const box = element("div", "", className ? { class: className } : {});
    box.append(element("p", es));
    if (en) box.append(element("p", en, { lang: "en", class: "en-linea" }));
    return box;
  }

  function fileLink(name, text, content) {
    const link = element("a", text, { download: name });
    link.href = URL.createObjectURL(new Blob([content], { type: "application/json" }));
    return link;
  }

  class Checkout {
    constructor(root) {
      this.root = root;
      this.base = root.dataset.comprar;
      this.mode = root.dataset.modo;
      this.box = root.querySelector("[data-caja]");
      this.list = root.querySelector("[data-billeteras]");
      this.status = root.querySelector("[data-estado]");
      this.alert = root.querySelector("[data-aviso]");
      this.pendingBox = root.querySelector("[data-pendiente]");
      this.result = root.querySelector("[data-resultado]");
      this.buttons = [...root.querySelectorAll("button")];
      this.chosen = null;
      this.busy = false;
    }

    start() {
      for (const node of this.root.querySelectorAll("[data-sin-script]")) node.hidden = true;
      this.box.hidden = false;
      const asked = new URLSearchParams(window.location.search).get("vista");
      const radio = this.root.querySelector(`input[name="vista"][value="${asked === "resumen" ? "resumen" : "completo"}"]`);
      if (radio) radio.checked = true;
      this.root.querySelector("[data-pagar]").addEventListener("click", () => this.run(() => this.pay()));
      this.root.querySelector("[data-ingresar]").addEventListener("click", () => this.run(() => this.signInAgain()));
      this.root.querySelector("[data-reintentar]").addEventListener("click", () => this.run(() => this.retry()));
      for (const input of this.root.querySelectorAll('input[name="vista"]')) input.addEventListener("change", () => this.showPending());
      listenForWallets(() => this.showWallets());
      // Wallets announce in answer to the request; the legacy one, if any, is already there.
      setTimeout(() => this.showWallets(), 400);
      this.showWallets();
      this.showPending();
    }

    view() {
      const checked = this.root.querySelector('input[name="vista"]:checked');
      return checked ? checked.value : "completo";
    }

    url() {
      return `${this.base}?vista=${this.view()}`;
    }

    showWallets() {
      const found = wallets();
      const key = found.map((w) => w.info.uuid || w.info.name).join("|");
      if (this.shown === key) return;
      this.shown = key;
      this.list.replaceChildren();
      if (found.length === 0) {
        this.chosen = null;
        this.list.append(
          bilingual(
            "No se encontró ninguna billetera en este navegador. Instale una (MetaMask, Coinbase Wallet, Rabby u otra) y recargue la página, o compre con un agente (más abajo).",
            "No wallet was found in this browser. Install one (MetaMask, Coinbase Wallet, Rabby or another) and reload, or buy with an agent (below).",
            "sin-billetera",
          ),
        );
        return;
      }
      if (!this.chosen || !found.some((w) => w.provider === this.chosen.provider)) this.chosen = found[0];
      const group = element("fieldset", "", { class: "billeteras" });
      group.append(element("legend", "Billetera"));
      found.forEach((wallet, index) => {
        const row = element("div", "", { class: "opcion-billetera" });
        const input = element("input", "", { type: "radio", id: `billetera-${index}`, name: "billetera", value: wallet.info.uuid || wallet.info.name });
        input.checked = wallet === this.chosen;
        input.addEventListener("change", () => {
          this.chosen = wallet;
        });
        const label = element("label", "", { for: input.id });
        if (typeof wallet.info.icon === "string" && wallet.info.icon.startsWith("data:image/")) {
          label.append(element("img", "", { src: wallet.info.icon, alt: "", width: "24", height: "24" }), " ");
        }
        label.append(String(wallet.info.name));
        row.append(input, label);
        group.append(row);
      });
      this.list.append(group);
    }

    say(text) {
      this.status.textContent = text;
    }

    warn(refusal) {
      this.alert.replaceChildren(bilingual(refusal.message, refusal.en, "aviso-error"));
      if (refusal.detail) this.alert.append(element("p", refusal.detail, { class: "chico" }));
      this.alert.dataset.tipo = refusal.kind;
    }

    async run(step) {
      if (this.busy) return;
      this.busy = true;
      this.buttons.forEach((b) => (b.disabled = true));
      this.alert.replaceChildren();
      delete this.alert.dataset.tipo;
      try {
        await step();
      } catch (error) {
        this.say("");
        this.warn(error instanceof Refusal ? error : new Refusal(`Algo falló: ${error && error.message}`, "Something failed."));
      } finally {
        this.busy = false;
        this.buttons.forEach((b) => (b.disabled = false));
      }
    }

    wallet() {
      if (!this.chosen) {
        throw new Refusal("Necesita una billetera del navegador para pagar desde esta página.", "You need a browser wallet to pay from this page.");
      }
      return this.chosen.provider;
    }

    async pay() {
      const url = this.url();
      if (loadPending(url)) {
        // A payment already signed for this purchase: repeat it, never sign another.
        this.showPending();
        throw new Refusal(
          "Ya hay un pago firmado para esta compra sin respuesta segura: use «Reintentar con la misma firma».",
          "A payment for this purchase is already signed without a certain answer: use “Retry with the same signature”.",
          { kind: "pendiente" },
        );
      }
      const provider = this.wallet();
      this.say("Conectando la billetera…");
      const address = await connect(provider);
      this.say("Leyendo los requisitos de pago…");
      const { required, requirement } = await fetchOffer(url);
      this.say(`Pidiendo a la billetera la red ${networkName(requirement.network)}…`);
      await selectNetwork(provider, requirement.network);
      this.say("Leyendo su saldo de USDC…");
      const balance = await balanceOf(provider, requirement.asset, address);
      if (balance < BigInt(requirement.amount)) {
        throw new Refusal(
          `Saldo insuficiente: la cuenta ${address} tiene ${usdc(balance)} USDC en ${networkName(requirement.network)} y el estudio cuesta ${usdc(requirement.amount)} USDC. No se firmó nada.`,
          `Not enough USDC: ${address} holds ${usdc(balance)} USDC on ${networkName(requirement.network)} and the study costs ${usdc(requirement.amount)} USDC. Nothing was signed.`,
          { kind: "saldo" },
        );
      }
      this.say(`Firme en la billetera la autorización de ${usdc(requirement.amount)} USDC…`);
      const signed = await signPayment(provider, address, required, requirement);
      const entry = { url, header: signed.header, validBefore: signed.validBefore, network: requirement.network, address };
      savePending(url, entry);
      await this.send(entry);
    }

    async retry() {
      const entry = loadPending(this.url());
      if (!entry) {
        this.showPending();
        return;
      }
      await this.send(entry);
    }

    /** Sends a signed payment and says what came of it; keeps it unless the answer is certain. */
    async send(entry) {
      this.say("Enviando el pago al servicio…");
      let response;
      try {
        response = await fetch(entry.url, { headers: { Accept: "application/json", "PAYMENT-SIGNATURE": entry.header }, cache: "no-store" });
      } catch {
        this.showPending();
        throw new Refusal(
          "Se cortó la conexión con el servicio después de enviar el pago: no sabemos si se cobró. Reintente con la misma firma: se cobra una sola vez.",
          "The connection broke after the payment was sent: we do not know whether it was charged. Retry with the same signature: it is charged once at most.",
          { kind: "incierta" },
        );
      }
      const body = await response.json().catch(() => null);
      if (response.status === 200 && body) {
        clearPending(entry.url);
        this.showPending();
        this.say("");
        this.show(body, response.headers.get("PAYMENT-RESPONSE"), false);
        return;
      }
      this.say("");
      const code = (body && body.error) || "";
      const message = (body && body.mensaje) || `respuesta ${response.status}`;
      if (response.status >= 500 || response.status === 409 || response.status === 429 || !body) {
        // Nothing certain (or a wait): the same signature is the only safe retry.
        this.showPending();
        if (code === "liquidacion_incierta") {
          throw new Refusal(
            `Liquidación incierta: ${message} No firme otro pago. Pulse «Reintentar con la misma firma» antes de ${new Date(entry.validBefore * 1000).toLocaleTimeString("es-AR")}: si el dinero ya se movió recibe el estudio sin otro cobro; si no, se cobra ahora, una vez.`,
            "Uncertain settlement: do not sign another payment. Press “Retry with the same signature”: if the money already moved you get the study without a second charge; if not, it is charged now, once.",
            { kind: "incierta" },
          );
        }
        throw new Refusal(
          `El servicio no pudo completar el pago (${response.status}): ${message} Reintente con la misma firma en un momento.`,
          `The service could not complete the payment (${response.status}). Retry with the same signature in a moment.`,
          { kind: "reintentar" },
        );
      }
      // 402 or 400: refused for certain, nothing charged.
      clearPending(entry.url);
      this.showPending();
      if (/valid_before|valid_after/.test(code)) {
        throw new Refusal(
          `La autorización de pago venció o todavía no vale: ${message} No se cobró nada. Revise la fecha y hora de este equipo y vuelva a pagar.`,
          "The payment authorization expired or is not valid yet. Nothing was charged. Check this computer's date and time and pay again.",
          { kind: "vencida", detail: `Código: ${code}` },
        );
      }
      if (/insufficient/.test(code)) {
        throw new Refusal(`Saldo insuficiente: ${message} No se cobró nada.`, "Not enough USDC. Nothing was charged.", { kind: "saldo", detail: `Código: ${code}` });
      }
      throw new Refusal(`Pago rechazado: ${message} No se cobró nada.`, "Payment refused. Nothing was charged.", { kind: "rechazado", detail: `Código: ${code}` });
    }

    async signInAgain() {
      const provider = this.wallet();
      const url = this.url();
      this.say("Conectando la billetera…");
      const address = await connect(provider);
      this.say("Leyendo el desafío de ingreso…");
      const { required, requirement } = await fetchOffer(url);
      this.say("Firme en la billetera el mensaje de ingreso (no es un pago)…");
      const header = await signIn(provider, address, required, requirement.network);
      this.say("Ingresando…");
      let response;
      try {
        response = await fetch(url, { headers: { Accept: "application/json", "SIGN-IN-WITH-X": header }, cache: "no-store" });
      } catch {
        throw new Refusal("No se pudo hablar con el servicio. Vuelva a intentar.", "Could not reach the service. Try again.");
      }
      const body = await response.json().catch(() => null);
      this.say("");
      if (response.status === 200 && body) {
        this.show(body, null, true);
        return;
      }
      const code = (body && body.error) || "";
      if (code === "sin_compra") {
        throw new Refusal(
          `Esta billetera (${address}) no compró este estudio en ${networkName(requirement.network)}: no hay nada que recuperar. Puede comprarlo con «Pagar».`,
          `This wallet (${address}) did not buy this study on ${networkName(requirement.network)}: nothing to get again. You can buy it with “Pay”.`,
          { kind: "sin_compra" },
        );
      }
      throw new Refusal(
        `No se pudo ingresar: ${(body && body.mensaje) || `respuesta ${response.status}`}`,
        "Could not sign in.",
        { kind: "ingreso", detail: code ? `Código: ${code}` : "" },
      );
    }

    showPending() {
      const entry = loadPending(this.url());
      this.pendingBox.hidden = !entry;
      const text = this.pendingBox.querySelector("[data-texto-pendiente]");
      if (entry && text) {
        text.textContent = `Hay un pago firmado por ${entry.address} para esta vista que el servicio todavía no confirmó. Reintente con la misma firma; no firme otro.`;
      }
    }

    /** What was bought: the study, the downloads with their sha256, the receipt, the transaction. */
    show(body, paymentResponse, again) {
      const out = [];
      const settlement = body.liquidacion || {};
      const network = settlement.red || (body.pago && body.pago.red);
      out.push(element("h3", again ? "Estudio recuperado, sin cobro" : "Compra confirmada", { id: "titulo-resultado" }));
      out.push(
        bilingual(
          again
            ? `${body.nombre}: vista ${body.vista}, con enlaces nuevos. Su billetera lo compró antes; esta vez no se cobró nada.`
            : `${body.nombre}: vista ${body.vista}. Pagó ${usdc((body.pago && body.pago.monto) || "0")} USDC en ${networkName(network)}.`,
          again ? "Bought before by this wallet: fresh links, no charge." : "Paid. Your downloads and receipt are below.",
        ),
      );
      const facts = element("dl", "", { class: "datos-compra" });
      const fact = (term, value) => {
        const row = element("div");
        row.append(element("dt", term));
        const dd = element("dd");
        dd.append(value);
        row.append(dd);
        facts.append(row);
      };
      if (settlement.transaccion) {
        const explorer = NETWORKS[network] && NETWORKS[network].explorer;
        const tx = explorer ? element("a", settlement.transaccion, { href: `${explorer}/tx/${settlement.transaccion}`, class: "hash", rel: "noopener" }) : element("code", settlement.transaccion, { class: "hash" });
        const box = element("span");
        box.append(tx);
        if (this.mode === "local") box.append(element("span", " (modo local: esta transacción no está en la red pública)", { class: "chico" }));
        fact("Transacción", box);
      }
      if (body.pago && body.pago.pagador) fact("Pagó", element("code", body.pago.pagador, { class: "hash" }));
      if (body.reacceso && body.reacceso.transaccion && !settlement.transaccion) fact("Compra original", element("code", body.reacceso.transaccion, { class: "hash" }));
      out.push(facts);

      const access = body.acceso || {};
      const downloads = access.descargas || {};
      out.push(element("h4", "Descargas"));
      const list = element("ul", "", { class: "descargas" });
      for (const kind of ["json", "zip"]) {
        const file = downloads[kind];
        if (!file) continue;
        const item = element("li");
        item.append(element("a", file.archivo, { href: file.url, download: file.archivo }));
        item.append(document.createTextNode(` (${bytesText(file.bytes)}) · SHA-256 `));
        item.append(element("code", file.sha256, { class: "hash" }));
        list.append(item);
      }
      out.push(list);
      if (access.vence) {
        const when = new Date(access.vence);
        out.push(element("p", `Los enlaces vencen el ${when.toLocaleString("es-AR")} y sirven a quien los tenga: trátelos como un secreto. Compruebe cada archivo con su SHA-256 (sha256sum).`, { class: "chico" }));
      }

      const stem = `${body.estudio}.${body.vista}`;
      const receipt = settlement.recibo;
      out.push(element("h4", "Recibo firmado"));
      if (receipt) {
        const p = element("p");
        p.append(fileLink(`${stem}.recibo.json`, "Descargar el recibo firmado", JSON.stringify(receipt, null, 2) + "\n"));
        p.append(document.createTextNode(" (JWS del editor; se comprueba con comprar verificar-recibo)."));
        out.push(p);
        const details = element("details");
        details.append(element("summary", "Ver el recibo"));
        details.append(element("pre", receipt.signature, { class: "recibo", tabindex: "0" }));
        out.push(details);
      } else {
        out.push(element("p", "Esta vista no trae recibo: el recibo es de la vista comprada (pida esa vista para recibirlo de nuevo).", { class: "chico" }));
      }
      if (paymentResponse) {
        try {
          const decoded = fromBase64Json(paymentResponse);
          if (decoded && decoded.transaction) out[0].dataset.transaccion = decoded.transaction;
        } catch {
          // the body already says it
        }
      }

      out.push(element("h4", "Qué compró"));
      out.push(...this.contents(body));
      const save = element("p");
      save.append(fileLink(`${stem}.json`, "Guardar el estudio (JSON)", JSON.stringify(body)));
      out.push(save);

      this.result.replaceChildren(...out);
      this.result.hidden = false;
      this.result.focus();
    }

    /** The summary's findings, or the package's tables and answers, in a few lines. */
    contents(body) {
      const study = body.resumen || body.paquete || {};
      const nodes = [];
      const counts = [];
      if (Array.isArray(study.analisis)) counts.push(`${study.analisis.length} tablas de análisis`);
      else if (Array.isArray(study.analisis_indice)) counts.push(`${study.analisis_indice.length} tablas de análisis en el paquete completo`);
      if (Array.isArray(study.respuestas)) counts.push(`${study.respuestas.length.toLocaleString("es-AR")} respuestas originales`);
      if (Array.isArray(study.hallazgos)) counts.push(`${study.hallazgos.length} hallazgos`);
      if (study.diseno && Array.isArray(study.diseno.marcas)) counts.push(`${study.diseno.marcas.length} marcas seguidas`);
      nodes.push(element("p", (body.resumen ? "Resumen: " : "Paquete completo: ") + counts.join(", ") + "."));
      const tables = study.analisis || study.analisis_indice;
      if (Array.isArray(tables) && tables.length) {
        const list = element("ul", "", { class: "lista-compacta" });
        for (const table of tables) list.append(element("li", `${table.id}: ${table.titulo}`));
        nodes.push(list);
      }
      if (Array.isArray(study.hallazgos) && study.hallazgos.length) {
        nodes.push(element("p", "Hallazgos:"));
        const list = element("ol", "", { class: "hallazgos" });
        for (const finding of study.hallazgos) {
          const item = element("li", finding.texto);
          if (finding.texto_en) item.append(element("span", finding.texto_en, { lang: "en", class: "en-linea" }));
          list.append(item);
        }
        nodes.push(list);
      }
      return nodes;
    }
  }

  const root = document.getElementById("billetera");
  if (root && root.dataset.comprar) new Checkout(root).start();
})();
