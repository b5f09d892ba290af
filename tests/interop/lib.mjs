// Shared helpers of the interop clients: the public dev key, a check counter, JSON and sha256.
// Each client script exits non-zero when any check failed, so run.sh can count it.
import { createHash } from "node:crypto";

/** Public Anvil/Hardhat development key #0: never holds real funds. */
export const DEV_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
export const DEV_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/** The gate's base URL, from argv[2] or $GATE_URL. */
export function baseUrl() {
  const url = process.argv[2] ?? process.env.GATE_URL;
  if (!url) {
    console.error("uso: node <script> http://127.0.0.1:PUERTO");
    process.exit(2);
  }
  return url.replace(/\/$/, "");
}

/** Counts checks; `done()` prints the tally and sets the exit code. */
export class Checks {
  constructor(name) {
    this.name = name;
    this.passed = 0;
    this.failed = 0;
  }
  ok(condition, what, detail) {
    if (condition) {
      this.passed += 1;
    } else {
      this.failed += 1;
      console.error(`  FALLA ${this.name}: ${what}${detail === undefined ? "" : ` (${typeof detail === "string" ? detail : JSON.stringify(detail)})`}`);
    }
    return condition;
  }
  equal(actual, expected, what) {
    return this.ok(actual === expected, what, `obtenido ${JSON.stringify(actual)}, esperado ${JSON.stringify(expected)}`);
  }
  /** Runs `step`, counting a thrown error as one failed check. */
  async step(what, step) {
    try {
      return await step();
    } catch (error) {
      this.ok(false, what, error?.stack ?? String(error));
      return undefined;
    }
  }
  done() {
    console.log(`${this.name}: ${this.passed} checks passed, ${this.failed} failed`);
    process.exit(this.failed === 0 && this.passed > 0 ? 0 : 1);
  }
}

export async function getJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} → ${response.status}`);
  return response.json();
}

export function sha256Hex(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Every study slug in the free catalog. */
export async function studySlugs(base) {
  const catalog = await getJson(`${base}/catalogo`);
  return catalog.estudios.map((e) => e.slug);
}
