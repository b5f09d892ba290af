// Browser tests of the pages for people, against the real gate over a fresh build of the sample
// content (tests/muestra/: the tests name its studies).
//
// Debian's Chromium (headless, driven by puppeteer-core, which downloads no browser) loads the
// catalog, a study page, the browser 402 and the privacy page from the running gate; it checks
// that the filters and the search box work, that no page asks any other host for anything, and
// runs axe-core in each page (no serious or critical violation allowed). The Nu HTML checker
// (vnu.jar from npm, run with the machine's Java) validates every page the generator wrote.
// Screenshots go to <target>/navegador/capturas/.
//
// Needs the debug binaries of generator and gate: `cargo build --workspace --all-targets`.
// Environment: CARGO_TARGET_DIR (default <repo>/target), CHROMIUM (default /usr/bin/chromium).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import {
  BIN, DESKTOP, MOBILE, ROOT, TARGET, assertAccessible, assertClean, build, freePort, launchBrowser, openPage as openTab, requireBinaries, run, start, stop, waitFor,
} from "./comun.mjs";

const require = createRequire(import.meta.url);
const OUT = path.join(TARGET, "navegador");
const SHOTS = path.join(OUT, "capturas");
const DIST = path.join(OUT, "dist");
const STUDY = "banca-2026";

let gate;
let base;
let browser;
let catalog;

before(async () => {
  requireBinaries(["generator", "gate"]);
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
  build(path.join(ROOT, "tests", "muestra"), DIST);

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gate = start(path.join(BIN, "gate"), ["--dist", DIST, "--listen", `127.0.0.1:${port}`, "--data", path.join(OUT, "var"), "--threads", "1"], { GATE_LOG: "warn" });
  await waitFor(`${base}/catalogo`, gate);
  catalog = await (await fetch(`${base}/catalogo`)).json();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  await stop(gate);
});

function openPage(viewport = DESKTOP) {
  return openTab(browser, base, viewport);
}

async function shoot(page, name) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

test("the home page is the catalog: nine studies, landmarks, no other host", async () => {
  const tab = await openPage();
  const response = await tab.page.goto(`${base}/`, { waitUntil: "networkidle0" });
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-type"], /^text\/html/);
  assert.equal(response.headers()["vary"], "Accept");
  const facts = await tab.page.evaluate(() => ({
    lang: document.documentElement.lang,
    h1: document.querySelector("h1")?.textContent,
    cards: document.querySelectorAll(".tarjeta").length,
    landmarks: ["header", "nav", "main", "footer"].map((t) => document.querySelectorAll(t).length),
    filtersShown: !document.getElementById("filtros").hidden,
    links: [...document.querySelectorAll(".tarjeta h3 a")].map((a) => a.getAttribute("href")),
  }));
  assert.equal(facts.lang, "es");
  assert.equal(facts.cards, catalog.estudios.length);
  assert.equal(facts.cards, 9);
  assert.ok(facts.landmarks.every((n) => n >= 1), `landmarks ${facts.landmarks}`);
  assert.ok(facts.filtersShown, "the script shows the filters");
  assert.deepEqual(facts.links, catalog.estudios.map((e) => `/estudios/${e.slug}`));
  await assertClean(tab, "home");
  await assertAccessible(tab.page, "home");
  await shoot(tab.page, "inicio-escritorio");
  await tab.page.setViewport(MOBILE);
  await shoot(tab.page, "inicio-movil");
  await tab.page.close();
});

test("the filters narrow the catalog by industry and by country", async () => {
  const tab = await openPage();
  await tab.page.goto(`${base}/`, { waitUntil: "networkidle0" });
  const visible = () => tab.page.$$eval(".tarjeta", (cards) => cards.filter((c) => !c.hidden).map((c) => c.querySelector("h3 a").getAttribute("href")));
  const industry = catalog.estudios[0].industria;
  await tab.page.select("#filtro-industria", industry);
  const expectedIndustry = catalog.estudios.filter((e) => e.industria === industry).map((e) => `/estudios/${e.slug}`);
  assert.deepEqual(await visible(), expectedIndustry);
  assert.ok(expectedIndustry.length < catalog.estudios.length, "the filter removes something");
  assert.equal(await tab.page.$eval("#filtro-estado", (e) => e.textContent), `${expectedIndustry.length} de 9 estudios`);

  await tab.page.select("#filtro-industria", "");
  const country = "Chile";
  await tab.page.select("#filtro-pais", country);
  const expectedCountry = catalog.estudios.filter((e) => e.pais.includes(country)).map((e) => `/estudios/${e.slug}`);
  assert.ok(expectedCountry.length > 0 && expectedCountry.length < 9, `${country}: ${expectedCountry.length}`);
  assert.deepEqual(await visible(), expectedCountry);
  await shoot(tab.page, "inicio-filtro-pais");
  await assertClean(tab, "filters");
  await tab.page.close();
});

for (const [brand, slug] of [["Galicia", "banca-2026"], ["marriott", "cadenas-hoteleras-cono-sur-2026"]]) {
  test(`the search box finds ${slug} by the brand ${brand}`, async () => {
    const tab = await openPage();
    await tab.page.goto(`${base}/`, { waitUntil: "networkidle0" });
    await tab.page.type("#q", brand);
    await Promise.all([
      tab.page.waitForResponse((r) => r.url().startsWith(`${base}/buscar?`) && r.status() === 200),
      tab.page.keyboard.press("Enter"),
    ]);
    await tab.page.waitForSelector("#resultados li a");
    const results = await tab.page.$$eval("#resultados li", (items) =>
      items.map((li) => ({ href: li.querySelector("a").getAttribute("href"), text: li.textContent })),
    );
    assert.equal(results[0].href, `/estudios/${slug}`, JSON.stringify(results));
    assert.match(results[0].text, new RegExp(brand, "i"), "the result says which brand matched");
    assert.equal(new URL(tab.page.url()).searchParams.get("q"), brand, "the query is kept in the address");
    await assertAccessible(tab.page, `search ${brand}`);
    await shoot(tab.page, `busqueda-${slug}`);
    await tab.page.click("#resultados li a");
    await tab.page.waitForSelector("h1");
    assert.equal(new URL(tab.page.url()).pathname, `/estudios/${slug}`);
    await assertClean(tab, `search ${brand}`);
    await tab.page.close();
  });
}

test("a study page shows the free sheet with its charts, files and how to buy", async () => {
  const sheet = await (await fetch(`${base}/estudio/${STUDY}/ficha`)).json();
  const tab = await openPage();
  const response = await tab.page.goto(`${base}/estudios/${STUDY}`, { waitUntil: "networkidle0" });
  assert.equal(response.status(), 200);
  assert.match(response.headers()["content-security-policy"], /default-src 'none'/);
  const facts = await tab.page.evaluate(() => ({
    h1: document.querySelector("h1").textContent,
    charts: [...document.querySelectorAll("svg[role=img]")].map((svg) => ({
      title: svg.querySelector("title")?.textContent,
      bars: svg.querySelectorAll("rect").length,
      width: svg.getBoundingClientRect().width,
    })),
    hashes: [...document.querySelectorAll("#archivos code.hash")].map((c) => c.textContent),
    english: document.querySelectorAll("[lang=en]").length,
    buy: document.querySelector("#comprar").textContent,
  }));
  assert.equal(facts.h1, sheet.nombre);
  assert.equal(facts.charts.length, sheet.universo.length + 1, "one chart a dimension plus the models");
  sheet.universo.forEach((u, i) => assert.equal(facts.charts[i].bars, u.valores.length, u.dimension));
  assert.equal(facts.charts.at(-1).bars, sheet.modelos.length);
  assert.ok(facts.charts.every((c) => c.title && c.width > 200), JSON.stringify(facts.charts));
  assert.deepEqual(facts.hashes, [sheet.archivos.json.sha256, sheet.archivos.zip.sha256]);
  assert.ok(facts.english >= 3, "English where the sheet has it");
  for (const needle of ["@x402/fetch", "x402HttpxClient", "comprar_estudio", "/mcp", sheet.urls.comprar]) {
    assert.ok(facts.buy.includes(needle), `how to buy mentions ${needle}`);
  }
  await assertClean(tab, "study page");
  await assertAccessible(tab.page, "study page");
  await shoot(tab.page, `estudio-${STUDY}-escritorio`);
  await tab.page.setViewport(MOBILE);
  const overflow = await tab.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways on a phone by ${overflow}px`);
  await shoot(tab.page, `estudio-${STUDY}-movil`);
  await tab.page.close();
});

test("a browser gets an HTML 402 with the PAYMENT-REQUIRED header; agents keep the JSON 402", async () => {
  const tab = await openPage();
  const response = await tab.page.goto(`${base}/estudio/${STUDY}`, { waitUntil: "networkidle0" });
  assert.equal(response.status(), 402);
  assert.match(response.headers()["content-type"], /^text\/html/);
  const required = JSON.parse(Buffer.from(response.headers()["payment-required"], "base64").toString("utf8"));
  assert.equal(required.x402Version, 2);
  const text = await tab.page.evaluate(() => document.body.textContent);
  for (const needle of ["0,99 USD", required.accepts[0].network, required.accepts[0].payTo, "@x402/fetch", "comprar_estudio"]) {
    assert.ok(text.includes(needle), `the 402 page mentions ${needle}`);
  }
  await assertClean(tab, "402 page");
  await assertAccessible(tab.page, "402 page");
  await shoot(tab.page, `pago-402-${STUDY}`);
  await tab.page.close();

  const agent = await fetch(`${base}/estudio/${STUDY}`, { headers: { Accept: "application/json" } });
  assert.equal(agent.status, 402);
  assert.match(agent.headers.get("content-type"), /^application\/json/);
  // The same requirements on both, but each 402 carries a sign-in-with-x challenge of its own.
  const withoutChallenge = (header) => {
    const decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    const info = decoded.extensions?.["sign-in-with-x"]?.info;
    assert.ok(info?.nonce, "each 402 carries a sign-in-with-x challenge");
    for (const field of ["nonce", "issuedAt", "expirationTime"]) delete info[field];
    return decoded;
  };
  assert.deepEqual(withoutChallenge(agent.headers.get("payment-required")), withoutChallenge(response.headers()["payment-required"]));
  assert.equal((await agent.json()).x402.x402Version, 2);
});

test("the privacy page is accessible and bilingual", async () => {
  const tab = await openPage();
  const response = await tab.page.goto(`${base}/privacidad`, { waitUntil: "networkidle0" });
  assert.equal(response.status(), 200);
  assert.equal(await tab.page.$$eval("section[lang=en] p", (ps) => ps.length > 0), true);
  await assertClean(tab, "privacy");
  await assertAccessible(tab.page, "privacy");
  await shoot(tab.page, "privacidad");
  await tab.page.close();
});

test("the Nu HTML checker finds no error in any page", () => {
  const pages = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".html")) pages.push(full);
    }
  };
  walk(DIST);
  // home, privacy, 9 study pages, 9 payment pages
  assert.equal(pages.length, 20, pages.join("\n"));
  const jar = path.join(path.dirname(require.resolve("vnu-jar/package.json")), "build", "dist", "vnu.jar");
  const result = run("java", ["-jar", jar, "--format", "json", "--also-check-svg", ...pages]);
  assert.ok(result.status === 0 || result.status === 1, `vnu did not run: ${result.stderr}`);
  const messages = JSON.parse(result.stderr || "{\"messages\":[]}").messages;
  const errors = messages.filter((m) => m.type === "error" || m.subType === "fatal");
  const warnings = messages.filter((m) => m.type === "info" && m.subType === "warning");
  const show = (m) => `${path.relative(DIST, fileURLToPath(m.url))}:${m.lastLine}: ${m.message}`;
  if (warnings.length) console.log(`# vnu, avisos:\n# ${warnings.map(show).join("\n# ")}`);
  assert.deepEqual(errors.map(show), [], "vnu errors");
});
