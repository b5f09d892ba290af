// What the browser tests share: where the binaries are, free ports, starting a program and
// waiting for it, Chromium, and a page that records requests to other hosts and
// Content-Security-Policy complaints.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, "../..");
export const TARGET = path.resolve(ROOT, process.env.CARGO_TARGET_DIR || "target");
export const BIN = path.join(TARGET, "debug");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

export const DESKTOP = { width: 1280, height: 900, deviceScaleFactor: 1 };
export const MOBILE = { width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true };

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw result.error;
  return result;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function requireBinaries(names) {
  for (const bin of names) {
    assert.ok(fs.existsSync(path.join(BIN, bin)), `missing ${path.join(BIN, bin)}: run cargo build --workspace --all-targets`);
  }
  assert.ok(fs.existsSync(CHROMIUM), `missing ${CHROMIUM}: apt-get install chromium`);
}

/// A program started in the background, its output kept for the failure message.
export function start(command, args, env = {}) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
  child.log = "";
  child.stdout.on("data", (d) => (child.log += d));
  child.stderr.on("data", (d) => (child.log += d));
  return child;
}

/// Stops what `start` started (SIGTERM, then waits for it).
export async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/// Waits until `url` answers 2xx, failing early if `child` exits.
export async function waitFor(url, child, deadlineMs = 20_000) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`${child.spawnfile} exited with ${child.exitCode}:\n${child.log}`);
    if (Date.now() > until) throw new Error(`${url} did not answer in ${deadlineMs} ms:\n${child.log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/// Builds `content` into `dist` with the debug generator.
export function build(content, dist) {
  const result = run(path.join(BIN, "generator"), ["build", "--content", content, "--out", dist, "--quiet"]);
  assert.equal(result.status, 0, `generator build failed:\n${result.stdout}${result.stderr}`);
}

/// A content folder with the sample's settings and one of its studies, served at `baseUrl`
/// (the sign-in challenge names the host of `base_url`: a page signs only its own).
export function oneStudyContent(folder, study, baseUrl) {
  const sample = path.join(ROOT, "tests", "muestra");
  fs.mkdirSync(path.join(folder, "estudios"), { recursive: true });
  for (const file of ["servicio.toml", "metricas.toml"]) fs.copyFileSync(path.join(sample, file), path.join(folder, file));
  fs.cpSync(path.join(sample, "estudios", study), path.join(folder, "estudios", study), { recursive: true });
  const settings = path.join(folder, "servicio.toml");
  fs.writeFileSync(settings, fs.readFileSync(settings, "utf8").replace(/^base_url *=.*$/m, `base_url = "${baseUrl}"`));
  return folder;
}

export function launchBrowser() {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--lang=es"],
  });
}

/// A page that records every request to another host (and lets none through) and every
/// Content-Security-Policy complaint or uncaught script error.
export async function openPage(browser, base, viewport = DESKTOP) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const external = [];
  const cspErrors = [];
  const ours = new URL(base).host;
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    if (request.isInterceptResolutionHandled()) return;
    const url = new URL(request.url());
    if (url.protocol === "data:" || url.protocol === "blob:" || url.host === ours) return request.continue();
    external.push(request.url());
    return request.abort();
  });
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspErrors.push(message.text());
  });
  page.on("pageerror", (error) => cspErrors.push(`error de script: ${error.message}`));
  return { page, external, cspErrors };
}

export async function assertClean({ external, cspErrors }, what) {
  assert.deepEqual(external, [], `${what} asked other hosts`);
  assert.deepEqual(cspErrors, [], `${what} broke its Content-Security-Policy or threw`);
}

const AXE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/// Runs axe-core in the page; fails on any serious or critical violation.
export async function assertAccessible(page, what) {
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    globalThis.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
    }),
  );
  const grave = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = grave.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n    ")}`);
  assert.equal(grave.length, 0, `${what}: axe-core found serious violations:\n${report.join("\n")}`);
  const minor = result.violations.map((v) => `${v.id} (${v.impact})`);
  if (minor.length) console.log(`# ${what}: axe-core, menores: ${minor.join(", ")}`);
  assert.ok(result.passes.length > 20, `${what}: axe-core ran only ${result.passes.length} rules`);
}
