#!/usr/bin/env bash
# Peer benchmark: the gate against the reference x402 seller (@x402/express, peer-server.mjs)
# with the same offer, both pointed at the same local facilitator over HTTP, measured in one run
# with wrk: the unpaid 402 answer and a free JSON route (the catalog). Prints req/s, p50, p99 and
# gate ÷ peer ratios. Target: ≥ 5× the peer's req/s on the 402 path.
#
#   apt-get install -y wrk && (cd tests/interop && npm ci)
#   cargo build --release -p gate -p generator --bins
#   tests/interop/bench-peer.sh [--segundos 10] [--conexiones 50] [--bin-dir DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds=10
connections=50
bin_dir="${BIN_DIR:-${CARGO_TARGET_DIR:-$root/target}/release}"
while [ $# -gt 0 ]; do
  case "$1" in
    --segundos) seconds="$2"; shift 2 ;;
    --conexiones) connections="$2"; shift 2 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "bench-peer: argumento desconocido $1" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "bench-peer: falta wrk (apt-get install -y wrk)" >&2; exit 2; }
for bin in gate generator facilitador-local; do
  [ -x "$bin_dir/$bin" ] || { echo "bench-peer: falta $bin_dir/$bin (cargo build --release -p gate -p generator --bins)" >&2; exit 2; }
done
[ -x "$here/node_modules/.bin/node" ] || { echo "bench-peer: falta node_modules (cd tests/interop && npm ci)" >&2; exit 2; }
export PATH="$here/node_modules/.bin:$PATH"

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-peer.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_up() {
  for _ in $(seq 1 150); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "bench-peer: $1 did not answer" >&2; exit 1
}

port_gate="$(free_port)"; port_peer="$(free_port)"; port_fac="$(free_port)"
cp -r "$root/content" "$work/content"
sed -i "s|^base_url *=.*|base_url = \"http://127.0.0.1:$port_gate\"|" "$work/content/servicio.toml"
"$bin_dir/generator" build --quiet --content "$work/content" --out "$work/dist"
pay_to="$(sed -n 's/^pagar_a_evm *= *"\(0x[0-9a-fA-F]*\)".*/\1/p' "$work/content/servicio.toml")"

GATE_LOG=warn "$bin_dir/facilitador-local" --listen "127.0.0.1:$port_fac" --sin-libro --threads 1 --data "$work/fac" &
pids+=($!)
wait_up "http://127.0.0.1:$port_fac/supported"
GATE_LOG=warn "$bin_dir/gate" --dist "$work/dist" --listen "127.0.0.1:$port_gate" --threads 2 \
  --facilitador "http://127.0.0.1:$port_fac" --data "$work/var" &
pids+=($!)
PORT="$port_peer" FACILITATOR_URL="http://127.0.0.1:$port_fac" PAY_TO="$pay_to" CATALOG="$work/dist/public/catalogo.json" \
  node "$here/peer-server.mjs" >"$work/peer.log" 2>&1 &
pids+=($!)
gate="http://127.0.0.1:$port_gate"
peer="http://127.0.0.1:$port_peer"
wait_up "$gate/catalogo"
wait_up "$peer/catalogo"

# Both must make the same offer: compare the decoded PAYMENT-REQUIRED accepts.
offer() { curl -s -D - -o /dev/null "$1/estudio/banca-2026" | tr -d '\r' | sed -n 's/^[Pp][Aa][Yy][Mm][Ee][Nn][Tt]-[Rr][Ee][Qq][Uu][Ii][Rr][Ee][Dd]: //p'; }
node -e '
  const [g, p] = process.argv.slice(1).map((h) => JSON.parse(Buffer.from(h, "base64").toString()));
  const pick = (r) => r.accepts.map(({ scheme, network, amount, asset, payTo, extra }) => ({ scheme, network, amount, asset, payTo: payTo.toLowerCase(), extra }));
  const [a, b] = [JSON.stringify(pick(g)), JSON.stringify(pick(p))];
  console.log("offer (gate): " + a);
  if (a !== b) { console.error("offer (peer): " + b + "\nbench-peer: the two servers do not make the same offer"); process.exit(1); }
  console.log("offer (peer): identical");
' "$(offer "$gate")" "$(offer "$peer")"

cat >"$work/report.lua" <<'LUA'
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d\n", summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA
# wrk counts non-2xx/3xx as "status errors"; the 402 is the answer under test, so only socket errors count.
measure() {
  local line
  line="$(wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/report.lua" "$1" | grep '^RESULT')"
  echo "${line#RESULT }"
}
expect_status() {
  local got; got="$(curl -s -o /dev/null -w '%{http_code}' "$1")"
  [ "$got" = "$2" ] || { echo "bench-peer: $1 answered $got, expected $2" >&2; exit 1; }
}
expect_status "$gate/estudio/banca-2026" 402; expect_status "$peer/estudio/banca-2026" 402
expect_status "$gate/catalogo" 200; expect_status "$peer/catalogo" 200

echo "bench-peer: wrk -t2 -c$connections -d${seconds}s on loopback; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: gate $(git -C "$root" rev-parse --short HEAD), node $(node --version), $(cd "$here" && node -p 'const v=(p)=>require("./node_modules/"+p+"/package.json").version; `@x402/express ${v("@x402/express")}, @x402/core ${v("@x402/core")}, @x402/evm ${v("@x402/evm")}, express ${v("express")}`'), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
read -r peer_402 peer_402_p50 peer_402_p99 _ peer_402_err <<<"$(measure "$peer/estudio/banca-2026")"
read -r gate_402 gate_402_p50 gate_402_p99 _ gate_402_err <<<"$(measure "$gate/estudio/banca-2026")"
read -r peer_free peer_free_p50 peer_free_p99 _ peer_free_err <<<"$(measure "$peer/catalogo")"
read -r gate_free gate_free_p50 gate_free_p99 _ gate_free_err <<<"$(measure "$gate/catalogo")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-34s %10s %9s %9s %8s\n' "case" "req/s" "p50 ms" "p99 ms" "errors"
row() { printf '%-34s %10.0f %9.2f %9.2f %8d\n' "$@"; }
row "peer 402 /estudio/banca-2026" "$peer_402" "$peer_402_p50" "$peer_402_p99" "$peer_402_err"
row "gate 402 /estudio/banca-2026" "$gate_402" "$gate_402_p50" "$gate_402_p99" "$gate_402_err"
row "peer /catalogo (same JSON)" "$peer_free" "$peer_free_p50" "$peer_free_p99" "$peer_free_err"
row "gate /catalogo" "$gate_free" "$gate_free_p50" "$gate_free_p99" "$gate_free_err"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "402 path: gate/peer req/s $(ratio "$gate_402" "$peer_402") (target >= 5), p99 peer/gate $(ratio "$peer_402_p99" "$gate_402_p99")"
echo "free JSON: gate/peer req/s $(ratio "$gate_free" "$peer_free"), p99 peer/gate $(ratio "$peer_free_p99" "$gate_free_p99")"
