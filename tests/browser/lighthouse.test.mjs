// Lighthouse (npm `lighthouse`, pinned, on Debian's Chromium through chrome-launcher) scores
// a study page and the browser's 402 page with the checkout in them: accessibility, best
// practices and SEO must be 100 (the study page scored 100, 96 for the missing /favicon.ico,
// and 100 before the checkout, on cf4743f), and performance must be what the same page scores
// without the checkout, measured just before it (the reference: the page's bytes with the
// checkout's section and script taken out), within 2 points, or at least 90 after three runs.
// Performance is not compared with a fixed 100:
// Lighthouse simulates a slow phone from the CPU time it observes, which other work on a
// shared machine inflates (BENCHMARKS.md has the figures of a quiet run). Lighthouse refuses
// to audit an answer that is not 2xx, so a tiny server of this test serves the 402 page's
// exact bytes and headers (Content-Security-Policy included) with status 200, the reference
// pages, and passes everything else through to the gate. Lighthouse's default settings (a
// phone, simulated slow 4G and a 4× slower CPU).
//
// It prints, for BENCHMARKS.md, each page's scores and time to interactive, and the checkout
// script's size raw, gzip (level 9) and brotli (quality 11):
//   cargo build --workspace --all-targets && (cd tests/browser && npm ci --ignore-scripts && node --test lighthouse.test.mjs)

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { BIN, CHROMIUM, ROOT, TARGET, build, freePort, oneStudyContent, requireBinaries, start, stop, waitFor } from "./comun.mjs";

const OUT = path.join(TARGET, "navegador-lighthouse");
const STUDY = "banca-2026";
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

let gate;
let base;
let mirror; // the 402 page with a 200, and the reference pages
let chrome;

/** The page without the checkout (its section and its script): the reference it is measured against. */
function withoutCheckout(html) {
  const stripped = html
    .toString("utf8")
    .replace(/<section id="billetera"[\s\S]*?<\/section>\n/, "")
    .replace(/<script src="[^"]*billetera\.js" defer><\/script>\n/, "");
  assert.notEqual(stripped, html.toString("utf8"));
  assert.doesNotMatch(stripped, /id="billetera"|billetera\.js|data-comprar/);
  return Buffer.from(stripped);
}

/** A page as the gate sends it: its bytes and headers (without the connection's own). */
async function fetchPage(url) {
  const answer = await fetch(url, { headers: { Accept: "text/html" } });
  const bytes = Buffer.from(await answer.arrayBuffer());
  const headers = Object.fromEntries([...answer.headers].filter(([name]) => !["content-length", "connection", "keep-alive", "date", "transfer-encoding"].includes(name)));
  return { status: answer.status, bytes, headers };
}

/**
 * A server for Lighthouse: `/estudio` is the study page as the gate sends it, `/402` the 402
 * page's exact bytes and headers with status 200,
 * `/referencia/estudio` and `/referencia/402` are the study page and the 402 page without the
 * checkout, and everything else is passed through to the gate.
 */
async function pagesServer() {
  const study = await fetchPage(`${base}/estudios/${STUDY}`);
  const unpaid = await fetchPage(`${base}/estudio/${STUDY}?vista=resumen`);
  assert.equal(study.status, 200);
  assert.equal(unpaid.status, 402);
  const pages = {
    "/estudio": study,
    "/402": unpaid,
    "/referencia/estudio": { ...study, bytes: withoutCheckout(study.bytes) },
    "/referencia/402": { ...unpaid, bytes: withoutCheckout(unpaid.bytes) },
  };
  const server = http.createServer(async (req, res) => {
    const page = pages[req.url];
    if (page) {
      res.writeHead(200, page.headers);
      res.end(page.bytes);
      return;
    }
    const passed = await fetchPage(`${base}${req.url}`);
    res.writeHead(passed.status, passed.headers);
    res.end(passed.bytes);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.url = `http://127.0.0.1:${server.address().port}`;
  server.unpaidHeaders = unpaid.headers;
  return server;
}

before(async () => {
  requireBinaries(["generator", "gate"]);
  fs.rmSync(OUT, { recursive: true, force: true });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  build(oneStudyContent(path.join(OUT, "contenido"), STUDY, base), path.join(OUT, "dist"));
  gate = start(path.join(BIN, "gate"), ["--dist", path.join(OUT, "dist"), "--listen", `127.0.0.1:${port}`, "--data", path.join(OUT, "var"), "--threads", "1"], { GATE_LOG: "warn" });
  await waitFor(`${base}/catalogo`, gate);
  mirror = await pagesServer();
  chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH || CHROMIUM,
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
});

after(async () => {
  if (chrome) await chrome.kill();
  if (mirror) mirror.close();
  await stop(gate);
});

async function audit(url) {
  const result = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: CATEGORIES });
  assert.ok(result && result.lhr, `lighthouse gave no result for ${url}`);
  assert.equal(result.lhr.runtimeError, undefined, JSON.stringify(result.lhr.runtimeError));
  return result.lhr;
}

/** The scores (0–100) of the categories, and what failed in each. */
function scores(lhr) {
  return Object.fromEntries(CATEGORIES.map((id) => [id, Math.round(lhr.categories[id].score * 100)]));
}

function failing(lhr) {
  const out = [];
  for (const id of CATEGORIES) {
    for (const ref of lhr.categories[id].auditRefs) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) out.push(`${id}: ${ref.id} (${audit.score}) ${audit.displayValue || ""}`);
    }
  }
  return out;
}

/** One line for the log and BENCHMARKS.md. */
function describe(lhr, what) {
  const got = scores(lhr);
  const seconds = (id) => (lhr.audits[id].numericValue / 1000).toFixed(2);
  return `# lighthouse ${lhr.lighthouseVersion}, ${what}: ${CATEGORIES.map((c) => `${c} ${got[c]}`).join(", ")}; tiempo hasta interactiva ${seconds("interactive")} s, FCP ${seconds("first-contentful-paint")} s, LCP ${seconds("largest-contentful-paint")} s, TBT ${Math.round(lhr.audits["total-blocking-time"].numericValue)} ms`;
}

/**
 * Scores `url` (the page with the checkout) and `reference` (the same page without it), one
 * after the other on the same machine: accessibility, best practices and SEO must be 100, and
 * performance, which a shared machine's load moves, must be the reference's (within 2 points).
 */
async function scored(url, reference, what) {
  const ref = await audit(reference);
  let lhr = await audit(url);
  // A shared machine's load moves single runs by many points: up to two more runs, the best kept.
  for (let run = 0; run < 2 && lhr.categories.performance.score < ref.categories.performance.score - 0.02; run++) {
    const again = await audit(url);
    if (again.categories.performance.score > lhr.categories.performance.score) lhr = again;
  }
  console.log(describe(lhr, `${what}, con la billetera`));
  console.log(describe(ref, `${what}, referencia sin la billetera`));
  const got = scores(lhr);
  const script = lhr.audits["network-requests"].details.items.find((r) => r.url.endsWith("/recursos/billetera.js"));
  assert.ok(script, `${what}: the page did not load its checkout script`);
  assert.deepEqual({ ...got, performance: 100 }, { performance: 100, accessibility: 100, "best-practices": 100, seo: 100 }, `${what}:\n${failing(lhr).join("\n")}`);
  assert.equal(lhr.audits["errors-in-console"].score, 1, `${what}: errors in the console`);
  // Performance: the reference's within 2 points, or at least 90 (Lighthouse's "good") when the
  // machine's load kept three runs from it; both are printed above.
  const floor = Math.min(scores(ref).performance - 2, 90);
  assert.ok(got.performance >= floor, `${what}: performance ${got.performance} against ${scores(ref).performance} without the checkout:\n${failing(lhr).join("\n")}`);
  return lhr;
}

test("Lighthouse: the study page with the checkout scores 100 in accessibility, best practices and SEO, and its performance is the page's without it", async () => {
  await scored(`${mirror.url}/estudio`, `${mirror.url}/referencia/estudio`, "página del estudio");
});

test("Lighthouse: the 402 page (its exact HTML and headers, with a 200) scores the same", async () => {
  assert.match(mirror.unpaidHeaders["content-security-policy"], /script-src 'self'/);
  assert.ok(mirror.unpaidHeaders["payment-required"], "the 402's own headers are kept");
  await scored(`${mirror.url}/402`, `${mirror.url}/referencia/402`, "página 402");
});

test("the checkout script is small: its size raw, gzip and brotli", () => {
  const script = fs.readFileSync(path.join(OUT, "dist", "public", "recursos", "billetera.js"));
  assert.deepEqual(script, fs.readFileSync(path.join(ROOT, "templates", "recursos", "billetera.js")), "served as written");
  const gzip = zlib.gzipSync(script, { level: 9 }).length;
  const brotli = zlib.brotliCompressSync(script, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`# recursos/billetera.js: ${script.length} bytes, gzip -9 ${gzip} bytes, brotli -q 11 ${brotli} bytes`);
  assert.ok(gzip < 30 * 1024, `gzip ${gzip} bytes: the target is under 30 KB compressed`);
});
