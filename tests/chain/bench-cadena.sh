#!/usr/bin/env bash
# Purchases that move USDC on a real local chain: the gate against x402-axum (tests/peer-axum),
# both settling through the same facilitator (the project's, `facilitador-local --rpc`, which
# submits each authorization as a transferWithAuthorization and answers from its receipt) on
# anvil running Circle's USDC (tests/chain/cadena.mjs). Three chains, measured in one run:
#   - automine: a block per transaction;
#   - 2 s blocks, like Base;
#   - automine with a proxy adding 50 ms to every facilitator call, as a remote facilitator
#     would (the gate needs one round trip per sale, /settle; x402-axum two, /verify and /settle).
# Both sellers must make the same offer (network, asset, payTo, amount, timeout, EIP-712 extra),
# and both deliver the same bytes: x402-axum answers with the study's package file
# (STUDIES=dist/private/descargas), as the gate delivers the study. For each chain, bench-compras
# at 8 and 64 buyers (--compradores) against each seller in turn, every purchase checked (200 and a successful
# PAYMENT-RESPONSE), and payTo's USDC balance read on the chain before and after each
# measurement must have grown by exactly price × purchases. Prints purchases/s, p50, p99 and
# the gate ÷ axum ratios. Target with the 50 ms proxy: the gate's p50 ≤ 0.6 × x402-axum's.
#
#   (cd tests/chain && npm ci)
#   cargo build --release -p gate -p generator --bins && cargo build --release -p tests --bin bench-compras
#   tests/chain/bench-cadena.sh [--segundos 10] [--rondas 3] [--compradores "8 64"] [--compras N] [--bin-dir DIR]
# --rondas: each measurement is repeated, the two sellers alternating (gate, axum, gate, …), and
# the table shows medians: the machine this runs on is shared, and its load changes by the minute.
# --compradores: the concurrencies measured ("1 8 64" adds one buyer: sales that never queue).
# --compras: signatures prepared per measurement (default 1,000 × --segundos, more than the
# local chain settles in that time).
# x402-axum is compiled into PEER_AXUM_TARGET_DIR (default ~/.cache/peer-axum-target).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds=10
rounds=3
buyer_counts="8 64"
purchases=""
price=""
bin_dir="${BIN_DIR:-${CARGO_TARGET_DIR:-$root/target}/release}"
peer_axum_target="${PEER_AXUM_TARGET_DIR:-$HOME/.cache/peer-axum-target}"
while [ $# -gt 0 ]; do
  case "$1" in
    --segundos) seconds="$2"; shift 2 ;;
    --compras) purchases="$2"; shift 2 ;;
    --rondas) rounds="$2"; shift 2 ;;
    --compradores) buyer_counts="$2"; shift 2 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "bench-cadena: argumento desconocido $1" >&2; exit 2 ;;
  esac
done
# Signatures prepared per measurement (bench-compras stops early if they run out): more than
# the local chain settles in the time.
purchases="${purchases:-$((seconds * 1000))}"
for bin in gate generator facilitador-local bench-compras; do
  [ -x "$bin_dir/$bin" ] || { echo "bench-cadena: falta $bin_dir/$bin (vea el encabezado de este script)" >&2; exit 2; }
done
[ -d "$here/node_modules/@foundry-rs/anvil" ] || { echo "bench-cadena: falta node_modules (cd tests/chain && npm ci)" >&2; exit 2; }

echo "bench-cadena: compilando tests/peer-axum (x402-axum) en $peer_axum_target" >&2
CARGO_TARGET_DIR="$peer_axum_target" cargo build --release --locked --quiet --manifest-path "$root/tests/peer-axum/Cargo.toml"
peer_axum="$peer_axum_target/release/peer-axum"

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-cadena.XXXXXX")"
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_up() {
  for _ in $(seq 1 300); do
    curl -s -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "bench-cadena: $1 no respondió" >&2; exit 1
}
json_field() { node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(process.argv[2].split(".").reduce((o,k)=>o[k],d))' "$1" "$2"; }
account_key() { node -e 'const d=JSON.parse(require("fs").readFileSync(process.argv[1]));console.log(d.accounts.find(a=>a.role===process.argv[2]).privateKey)' "$1" "$2"; }
# usdc_balance RPC ASSET ADDRESS: balanceOf(ADDRESS) on the chain, in atomic units.
usdc_balance() {
  node -e '
    const [rpc, asset, who] = process.argv.slice(1)
    const data = "0x70a08231" + who.slice(2).toLowerCase().padStart(64, "0")
    fetch(rpc, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ to: asset, data }, "latest"] }) })
      .then((r) => r.json()).then((r) => { if (!r.result) throw new Error(JSON.stringify(r)); console.log(BigInt(r.result).toString()) })
      .catch((e) => { console.error("bench-cadena: balanceOf: " + e.message); process.exit(1) })
  ' "$1" "$2" "$3"
}
# The exact EVM offer of URL's 402 for the study, as "network asset payTo amount".
offer_of() {
  local header
  header="$(curl -s -D - -o /dev/null "$1/estudio/banca-2026" | tr -d '\r' | sed -n 's/^[Pp][Aa][Yy][Mm][Ee][Nn][Tt]-[Rr][Ee][Qq][Uu][Ii][Rr][Ee][Dd]: //p')"
  node -e '
    const r = JSON.parse(Buffer.from(process.argv[1], "base64").toString())
    const a = r.accepts.find((a) => a.scheme === "exact" && a.network.startsWith("eip155:"))
    console.log([a.network, a.asset.toLowerCase(), a.payTo.toLowerCase(), a.amount, a.maxTimeoutSeconds, JSON.stringify(a.extra)].join(" "))
  ' "$header"
}
# same_offer GATE AXUM: both sellers ask the same payment (or the comparison means nothing).
same_offer() {
  local gate axum
  gate="$(offer_of "$1")"; axum="$(offer_of "$2")"
  [ "$gate" = "$axum" ] || { echo "bench-cadena: no hacen la misma oferta: gate $gate, x402-axum $axum" >&2; exit 1; }
  price="$(echo "$gate" | cut -d' ' -f4)"
}
seller_names=("gate" "x402-axum")

port_gate="$(free_port)"
cp -r "$root/content" "$work/content"
sed -i "s|^base_url *=.*|base_url = \"http://127.0.0.1:$port_gate\"|" "$work/content/servicio.toml"
"$bin_dir/generator" build --quiet --content "$work/content" --out "$work/dist"
pay_to="$(sed -n 's/^pagar_a_evm *= *"\(0x[0-9a-fA-F]*\)".*/\1/p' "$work/content/servicio.toml")"

# A proxy that holds every request DELAY ms before forwarding it (a remote facilitator).
cat >"$work/proxy.mjs" <<'JS'
import http from 'node:http'
const [port, upstream, delay] = process.argv.slice(2)
const target = new URL(upstream)
http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => setTimeout(() => {
    const forward = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers)
      answer.pipe(res)
    })
    forward.on('error', () => { res.writeHead(502); res.end() })
    forward.end(Buffer.concat(chunks))
  }, Number(delay)))
}).listen(Number(port), '127.0.0.1', () => console.log('listo'))
JS

# run_case NAME CHAIN_OPTIONS DELAY_MS: a fresh chain, facilitator, gate and peer; both measured.
declare -A results
run_case() {
  local name="$1" chain_options="$2" delay="$3"
  local port_fac port_axum facilitator rate p50 p99 count
  echo "bench-cadena: $name; carga antes: $(cut -d' ' -f1-3 /proc/loadavg)"
  node "$here/cadena.mjs" --json "$work/cadena.json" --buyers 1 --usdc 1000000 $chain_options >"$work/cadena.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 600); do grep -q '^listo' "$work/cadena.log" 2>/dev/null && break; sleep 0.1; done
  grep -q '^listo' "$work/cadena.log" || { cat "$work/cadena.log" >&2; echo "bench-cadena: la cadena no arrancó" >&2; exit 1; }
  local rpc; rpc="$(json_field "$work/cadena.json" rpc)"
  port_fac="$(free_port)"
  GATE_LOG=warn GATE_SETTLER_KEY="$(account_key "$work/cadena.json" settler)" "$bin_dir/facilitador-local" \
    --listen "127.0.0.1:$port_fac" --rpc "$rpc" --threads 2 --data "$work/fac-$name" &
  pids+=($!)
  wait_up "http://127.0.0.1:$port_fac/supported"
  facilitator="http://127.0.0.1:$port_fac"
  if [ "$delay" != 0 ]; then
    local port_proxy; port_proxy="$(free_port)"
    node "$work/proxy.mjs" "$port_proxy" "$facilitator" "$delay" >"$work/proxy.log" 2>&1 &
    pids+=($!)
    facilitator="http://127.0.0.1:$port_proxy"
    wait_up "$facilitator/supported"
  fi
  GATE_LOG=warn GATE_RPC_EIP155_84532="$rpc" "$bin_dir/gate" --dist "$work/dist" --listen "127.0.0.1:$port_gate" \
    --threads 2 --facilitador "$facilitator" --data "$work/var-$name" &
  pids+=($!)
  port_axum="$(free_port)"
  PORT="$port_axum" FACILITATOR_URL="$facilitator" PAY_TO="$pay_to" CATALOG="$work/dist/public/catalogo.json" \
    STUDIES="$work/dist/private/descargas" "$peer_axum" >"$work/axum-$name.log" 2>&1 &
  pids+=($!)
  wait_up "http://127.0.0.1:$port_gate/catalogo"
  wait_up "http://127.0.0.1:$port_axum/catalogo"
  local sellers=("http://127.0.0.1:$port_gate" "http://127.0.0.1:$port_axum")
  same_offer "${sellers[@]}"
  local asset; asset="$(json_field "$work/cadena.json" asset)"
  for buyers in $buyer_counts; do
    local i r
    # The sellers alternate, round after round, so a change in the machine's load falls on both.
    for r in $(seq 1 "$rounds"); do
      for i in 0 1; do
        local before after count
        before="$(usdc_balance "$rpc" "$asset" "$pay_to")"
        "$bin_dir/bench-compras" --compradores "$buyers" --segundos "$seconds" --compras "$purchases" \
          --url "${sellers[$i]}" >"$work/$name-$buyers-$i-$r.txt"
        grep -v '^RESULTADO ' "$work/$name-$buyers-$i-$r.txt"
        local line; line="$(sed -n 's/^RESULTADO //p' "$work/$name-$buyers-$i-$r.txt")"
        [ -n "$line" ] || { echo "bench-cadena: bench-compras no dio resultado" >&2; exit 1; }
        read -r rate p50 p99 count _ <<<"$line"
        # Every purchase answered 200 must have moved exactly the price to payTo, on chain.
        after="$(usdc_balance "$rpc" "$asset" "$pay_to")"
        node -e 'const [b, a, n, p] = process.argv.slice(1).map(BigInt); if (a - b !== n * p) { console.error(`bench-cadena: payTo recibió ${a - b} unidades por ${n} compras de ${p}`); process.exit(1) }' \
          "$before" "$after" "$count" "$price"
        echo "bench-cadena: $name, $buyers compradores, ${seller_names[$i]}, ronda $r: $count compras, payTo recibió $((after - before)) unidades de USDC en la cadena (= $count × $price); carga $(cut -d' ' -f1 /proc/loadavg)"
        results[$name,$buyers,$i,$r]="$rate $p50 $p99 $count"
      done
    done
  done
  stop_all
}

lock_version() { sed -n "/^name = \"$1\"$/{n;s/^version = \"\(.*\)\"$/\1/p;q}" "$root/tests/peer-axum/Cargo.lock"; }
echo "bench-cadena: ${seconds}s por vendedor y ronda, $rounds rondas; CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) × $(nproc); carga: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versiones: gate $(git -C "$root" rev-parse --short HEAD), x402-axum $(lock_version x402-axum), $("$here/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil" --version 2>/dev/null | head -1), node $(node --version)"
run_case automine "" 0
run_case bloques-2s "--block-time 2" 0
run_case proxy-50ms "" 50

# median VALUES…: the middle value (the lower of the two middle ones for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# column NAME BUYERS SELLER FIELD: that field (1 rate, 2 p50, 3 p99, 4 count) of every round.
column() { local r; for r in $(seq 1 "$rounds"); do echo "${results[$1,$2,$3,$r]}" | cut -d' ' -f"$4"; done; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "compras en la cadena: mediana de $rounds rondas (compras: todas las rondas)"
printf '%-34s %10s %9s %9s %8s\n' "caso" "compras/s" "p50 ms" "p99 ms" "compras"
for name in automine bloques-2s proxy-50ms; do
  for buyers in $buyer_counts; do
    for i in 0 1; do
      mapfile -t counts < <(column "$name" "$buyers" "$i" 4)
      printf '%-34s %10.1f %9.1f %9.1f %8d\n' "$name, $buyers, ${seller_names[$i]}" \
        "$(median $(column "$name" "$buyers" "$i" 1))" "$(median $(column "$name" "$buyers" "$i" 2))" \
        "$(median $(column "$name" "$buyers" "$i" 3))" "$(IFS=+; echo $((${counts[*]})))"
    done
  done
done
for name in automine bloques-2s proxy-50ms; do
  for buyers in $buyer_counts; do
    rates=() p50s=()
    for r in $(seq 1 "$rounds"); do
      read -r g_rate g_p50 _ <<<"${results[$name,$buyers,0,$r]}"
      read -r a_rate a_p50 _ <<<"${results[$name,$buyers,1,$r]}"
      rates+=("$(ratio "$g_rate" "$a_rate")"); p50s+=("$(ratio "$g_p50" "$a_p50")")
    done
    echo "$name, $buyers compradores: compras/s gate/axum $(median "${rates[@]}") (rondas ${rates[*]}), p50 gate/axum $(median "${p50s[@]}") (rondas ${p50s[*]})$([ "$name" = proxy-50ms ] && echo ', objetivo <= 0.6')"
  done
done
