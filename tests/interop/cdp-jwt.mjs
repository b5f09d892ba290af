// Coinbase CDP authentication against the official generator: for one P-256 key (SEC1 PEM, as
// Coinbase issues it) and one Ed25519 key (base64 of seed ‖ public key), starts the CDP stub
// (`facilitador-cdp-prueba`, which checks every request's JWT as CDP does), sends it tokens minted
// by @coinbase/cdp-sdk's `generateJwt` and by the gate (`gate token-cdp`) for GET /supported,
// POST /verify and POST /settle, and checks both pass and decode to the same header fields and
// claim names, with the same values where they are not per-token.
//
//   node cdp-jwt.mjs BIN_DIR      (BIN_DIR holds the `gate` and `facilitador-cdp-prueba` binaries)
import { execFile, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { generateJwt } from "@coinbase/cdp-sdk/auth";
import { Checks } from "./lib.mjs";

const PREFIX = "/platform/v2/x402";
const KEY_ID = "organizations/00000000-interop/apiKeys/11111111-interop";
const binDir = process.argv[2];
if (!binDir) {
  console.error("uso: node cdp-jwt.mjs DIRECTORIO_DE_BINARIOS");
  process.exit(2);
}
const checks = new Checks("cdp-jwt");

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function decode(token) {
  const [header, claims] = token.split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part, "base64url")));
  return { header, claims };
}

const names = (object) => Object.keys(object).sort().join(",");

/** The two forms of each key: what the gate reads, and what the SDK reads (it takes PKCS#8 only). */
function keys() {
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
  const ed = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  const edSecret = Buffer.concat([Buffer.from(ed.d, "base64url"), Buffer.from(ed.x, "base64url")]).toString("base64");
  return [
    {
      name: "ES256 (SEC1 PEM)",
      alg: "ES256",
      gate: ec.export({ type: "sec1", format: "pem" }),
      // @coinbase/cdp-sdk 1.57.0 imports the EC key with jose's importPKCS8, which refuses SEC1
      // ("EC PRIVATE KEY"), though its docs show that form: it gets the same key as PKCS#8.
      sdk: ec.export({ type: "pkcs8", format: "pem" }),
    },
    { name: "EdDSA (base64 seed ‖ public)", alg: "EdDSA", gate: edSecret, sdk: edSecret },
  ];
}

async function startStub(secret, port, data) {
  const child = spawn(join(binDir, "facilitador-cdp-prueba"), ["--listen", `127.0.0.1:${port}`, "--data", data], {
    env: { ...process.env, CDP_API_KEY_ID: KEY_ID, CDP_API_KEY_SECRET: secret, GATE_LOG: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 100; i += 1) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/prueba/cuentas`);
      if (response.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error("facilitador-cdp-prueba no respondió");
}

async function gateToken(secret, method, url) {
  const { stdout } = await promisify(execFile)(join(binDir, "gate"), ["token-cdp", method, url], {
    env: { ...process.env, CDP_API_KEY_ID: KEY_ID, CDP_API_KEY_SECRET: secret },
  });
  return stdout.trim();
}

async function send(method, url, token) {
  const response = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: method === "POST" ? "{}" : undefined,
  });
  return { status: response.status, body: await response.json() };
}

for (const key of keys()) {
  const data = mkdtempSync(join(tmpdir(), "cdp-jwt-"));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  let stub;
  await checks.step(`${key.name}: stub, SDK tokens and gate tokens`, async () => {
    stub = await startStub(key.gate, port, data);
    let lastSdkToken;
    for (const [method, path, answered] of [
      ["GET", "/supported", 200],
      ["POST", "/verify", 400],
      ["POST", "/settle", 400],
    ]) {
      const url = `http://${host}${PREFIX}${path}`;
      const sdk = await generateJwt({
        apiKeyId: KEY_ID,
        apiKeySecret: key.sdk,
        requestMethod: method,
        requestHost: host,
        requestPath: `${PREFIX}${path}`,
        expiresIn: 120,
      });
      const ours = await gateToken(key.gate, method, url);
      // The stub answers past the token check: /supported lists kinds, an empty body is a 400 refusal.
      for (const [who, token] of [["SDK", sdk], ["gate", ours]]) {
        const { status, body } = await send(method, url, token);
        checks.equal(status, answered, `${key.name} ${who} ${method} ${path}: ${JSON.stringify(body)}`);
      }
      const a = decode(sdk);
      const b = decode(ours);
      checks.equal(names(b.header), names(a.header), `${key.name} ${method} ${path}: header fields (SDK ${names(a.header)})`);
      checks.equal(names(b.claims), names(a.claims), `${key.name} ${method} ${path}: claim names (SDK ${names(a.claims)})`);
      for (const field of ["alg", "kid", "typ"]) checks.equal(b.header[field], a.header[field], `${key.name}: header ${field}`);
      checks.equal(a.header.alg, key.alg, `${key.name}: SDK alg`);
      for (const token of [a, b]) checks.ok(/^[0-9a-f]{32}$/.test(token.header.nonce), `${key.name}: nonce of 32 hex`, token.header.nonce);
      for (const field of ["iss", "sub"]) checks.equal(b.claims[field], a.claims[field], `${key.name}: claim ${field}`);
      checks.equal(JSON.stringify(b.claims.uris), JSON.stringify(a.claims.uris), `${key.name}: uris`);
      checks.equal(JSON.stringify(a.claims.uris), JSON.stringify([`${method} ${host}${PREFIX}${path}`]), `${key.name}: SDK uris`);
      checks.equal(b.claims.exp - b.claims.nbf, a.claims.exp - a.claims.nbf, `${key.name}: lifetime`);
      checks.equal(b.claims.iat, b.claims.nbf, `${key.name}: gate iat = nbf`);
      checks.ok(Math.abs(b.claims.nbf - a.claims.nbf) <= 5, `${key.name}: nbf within 5 s of the SDK's`);
      lastSdkToken = sdk;
    }
    // A replayed official token is refused: the stub really checks nonces.
    const { status } = await send("POST", `http://${host}${PREFIX}/settle`, lastSdkToken);
    checks.equal(status, 401, `${key.name}: a replayed SDK token`);
    const counts = await (await fetch(`http://${host}/prueba/cuentas`)).json();
    checks.equal(JSON.stringify(counts), JSON.stringify({ aceptados: 6, rechazados: 1 }), `${key.name}: stub counts`);
  });
  stub?.kill();
  rmSync(data, { recursive: true, force: true });
}

checks.done();
