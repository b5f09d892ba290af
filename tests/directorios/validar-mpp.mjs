// The store's entry for MPP's service directory (a `ServiceDef` of tempoxyz/mpp's
// schemas/services.ts), checked as the directory's pull-request checklist says
// (.github/PULL_REQUEST_TEMPLATE/service.md): `pnpm check:types` and `pnpm generate:discovery`,
// run here on the directory's own files pinned in tests/vendor/mpp (see its README):
//
// 1. schemas/services.ts = the directory's type definitions (services-types.ts, verbatim) and a
//    `services: ServiceDef[]` array holding only the entry; TypeScript (pinned in package.json)
//    type-checks it in strict mode: a missing, misspelt or mistyped field is an error;
// 2. scripts/generate-discovery.ts (verbatim), transpiled to JavaScript by the same compiler and
//    run with node in a temporary folder: it validates the entry (ids, routes, amounts, https)
//    and writes schemas/discovery.json, the directory's generated listing.
//
// usage: node validar-mpp.mjs ENTRY.json
// Prints one JSON line: {typeErrors: [...], generated: bool, error: string|null,
// discovery: <schemas/discovery.json>|null}. Exit status 0 unless the tool itself fails.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, "..", "vendor", "mpp");
const entry = JSON.parse(readFileSync(process.argv[2], "utf8"));
const work = mkdtempSync(join(tmpdir(), "directorio-mpp-"));
try {
  mkdirSync(join(work, "schemas"));
  mkdirSync(join(work, "scripts"));
  const types = readFileSync(join(vendor, "services-types.ts"), "utf8");
  const services = `${types}\n// prettier-ignore\nexport const services: ServiceDef[] = [\n${JSON.stringify(entry, null, 2)},\n];\n`;
  const servicesPath = join(work, "schemas", "services.ts");
  writeFileSync(servicesPath, services);

  const program = ts.createProgram([servicesPath], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
  });
  const typeErrors = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));

  const js = (source) =>
    ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
  writeFileSync(join(work, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(work, "schemas", "services.js"), js(services));
  const generator = readFileSync(join(vendor, "generate-discovery.ts"), "utf8");
  writeFileSync(
    join(work, "scripts", "generate-discovery.js"),
    js(generator).replace('"../schemas/services.ts"', '"../schemas/services.js"'),
  );
  const run = spawnSync(process.execPath, [join(work, "scripts", "generate-discovery.js")], {
    cwd: work,
    encoding: "utf8",
  });
  const generated = run.status === 0;
  const discovery = generated ? JSON.parse(readFileSync(join(work, "schemas", "discovery.json"), "utf8")) : null;
  console.log(
    JSON.stringify({ typeErrors, generated, error: generated ? null : `${run.stderr}`.slice(0, 2000), discovery }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
