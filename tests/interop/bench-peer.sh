#!/usr/bin/env bash
# Peer benchmark: the gate against the reference x402 sellers with the same offer, all pointed at
# the same local facilitator over HTTP, measured in one run:
#   - @x402/express (peer-server.mjs) and x402-axum (tests/peer-axum, its own crate outside the
#     workspace, built here);
#   - with wrk: the unpaid 402 answer and a free JSON route (the catalog);
#   - with bench-compras: paid purchases with fresh EIP-3009 signatures at 8 and 64 concurrent
#     buyers, each answer checked (200 and a successful PAYMENT-RESPONSE).
# Prints req/s, p50, p99 and the gate ÷ peer ratios. Targets: the 402 ≥ 5× express and ≥ 1.5×
# axum; purchases/s ≥ 1.5× axum.
#
# The peers answer a paid request with a small stub as their quick starts do, while the gate
# delivers the study (1.2 MB for banca-2026) and journals the sale; so the peers' purchases are
# measured twice: with the stub, and serving the study's package file (STUDIES=…).
#
# When nginx is installed, the run ends with the ceiling a seller of the study faces on this
# machine: nginx sending the same 1.2 MB file with sendfile to wrk at 8 and 64 connections, no
# payment at all. No sale can be faster than that delivery alone, so it is printed beside the
# 1.5 × axum target.
#
#   apt-get install -y wrk && (cd tests/interop && npm ci)
#   cargo build --release -p gate -p generator --bins && cargo build --release -p tests --bin bench-compras
#   tests/interop/bench-peer.sh [--segundos 10] [--conexiones 50] [--bin-dir DIR]
# x402-axum is compiled into PEER_AXUM_TARGET_DIR (default ~/.cache/peer-axum-target).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds=10
connections=50
bin_dir="${BIN_DIR:-${CARGO_TARGET_DIR:-$root/target}/release}"
peer_axum_target="${PEER_AXUM_TARGET_DIR:-$HOME/.cache/peer-axum-target}"
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
[ -x "$bin_dir/bench-compras" ] || { echo "bench-peer: falta $bin_dir/bench-compras (cargo build --release -p tests --bin bench-compras)" >&2; exit 2; }
[ -x "$here/node_modules/.bin/node" ] || { echo "bench-peer: falta node_modules (cd tests/interop && npm ci)" >&2; exit 2; }
export PATH="$here/node_modules/.bin:$PATH"

echo "bench-peer: compilando tests/peer-axum (x402-axum) en $peer_axum_target" >&2
CARGO_TARGET_DIR="$peer_axum_target" cargo build --release --locked --quiet --manifest-path "$root/tests/peer-axum/Cargo.toml"
peer_axum="$peer_axum_target/release/peer-axum"

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
  echo "bench-peer: $1 no respondió" >&2; exit 1
}

port_gate="$(free_port)"; port_fac="$(free_port)"
cp -r "$root/tests/muestra" "$work/content"
sed -i "s|^base_url *=.*|base_url = \"http://127.0.0.1:$port_gate\"|" "$work/content/servicio.toml"
"$bin_dir/generator" build --quiet --content "$work/content" --out "$work/dist"
pay_to="$(sed -n 's/^pagar_a_evm *= *"\(0x[0-9a-fA-F]*\)".*/\1/p' "$work/content/servicio.toml")"
studies="$work/dist/private/descargas"

# Every purchase of the run comes from one payer (the dev key): an opening balance of a million
# USDC covers them all.
GATE_LOG=warn "$bin_dir/facilitador-local" --listen "127.0.0.1:$port_fac" --sin-libro \
  --saldo-inicial 1000000000000 --threads 1 --data "$work/fac" &
pids+=($!)
wait_up "http://127.0.0.1:$port_fac/supported"
GATE_LOG=warn "$bin_dir/gate" --dist "$work/dist" --listen "127.0.0.1:$port_gate" --threads 2 \
  --facilitador "http://127.0.0.1:$port_fac" --data "$work/var" &
pids+=($!)
# start_peer NAME COMMAND…: starts a peer on a free port with the common settings (extra ones
# in the environment of the call) and sets the variable NAME to its URL.
start_peer() {
  local name="$1" port; shift
  port="$(free_port)"
  PORT="$port" FACILITATOR_URL="http://127.0.0.1:$port_fac" PAY_TO="$pay_to" CATALOG="$work/dist/public/catalogo.json" \
    "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  printf -v "$name" 'http://127.0.0.1:%s' "$port"
}
start_peer express node "$here/peer-server.mjs"
start_peer axum "$peer_axum"
start_peer express_study env STUDIES="$studies" node "$here/peer-server.mjs"
start_peer axum_study env STUDIES="$studies" "$peer_axum"
gate="http://127.0.0.1:$port_gate"
for url in "$gate" "$express" "$axum" "$express_study" "$axum_study"; do wait_up "$url/catalogo"; done

# Every seller must make the same offer: compare the decoded PAYMENT-REQUIRED accepts.
offer() { curl -s -D - -o /dev/null "$1/estudio/banca-2026" | tr -d '\r' | sed -n 's/^[Pp][Aa][Yy][Mm][Ee][Nn][Tt]-[Rr][Ee][Qq][Uu][Ii][Rr][Ee][Dd]: //p'; }
node -e '
  const names = ["express", "axum", "express (estudio)", "axum (estudio)"];
  const [g, ...peers] = process.argv.slice(1).map((h) => JSON.parse(Buffer.from(h, "base64").toString()));
  const pick = (r) => r.accepts.map(({ scheme, network, amount, asset, payTo, maxTimeoutSeconds, extra }) =>
    ({ scheme, network, amount, asset, payTo: payTo.toLowerCase(), maxTimeoutSeconds, extra }));
  const a = JSON.stringify(pick(g));
  console.log("oferta (gate): " + a);
  peers.forEach((p, i) => {
    const b = JSON.stringify(pick(p));
    if (a !== b) { console.error("oferta (" + names[i] + "): " + b + "\nbench-peer: no hacen la misma oferta"); process.exit(1); }
    console.log("oferta (" + names[i] + "): idéntica");
  });
' "$(offer "$gate")" "$(offer "$express")" "$(offer "$axum")" "$(offer "$express_study")" "$(offer "$axum_study")"

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
  [ "$got" = "$2" ] || { echo "bench-peer: $1 respondió $got, se esperaba $2" >&2; exit 1; }
}
for url in "$gate" "$express" "$axum"; do
  expect_status "$url/estudio/banca-2026" 402
  expect_status "$url/catalogo" 200
done

lock_version() { sed -n "/^name = \"$1\"$/{n;s/^version = \"\(.*\)\"$/\1/p;q}" "$root/tests/peer-axum/Cargo.lock"; }
echo "bench-peer: wrk -t2 -c$connections -d${seconds}s en loopback; carga antes: $(cut -d' ' -f1-3 /proc/loadavg); CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) × $(nproc)"
echo "versiones: gate $(git -C "$root" rev-parse --short HEAD), node $(node --version), $(cd "$here" && node -p 'const v=(p)=>require("./node_modules/"+p+"/package.json").version; `@x402/express ${v("@x402/express")}, @x402/core ${v("@x402/core")}, @x402/evm ${v("@x402/evm")}, express ${v("express")}`'), x402-axum $(lock_version x402-axum), axum $(lock_version axum), $(rustc --version | cut -d' ' -f1-2), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)"
read -r express_402 express_402_p50 express_402_p99 _ express_402_err <<<"$(measure "$express/estudio/banca-2026")"
read -r axum_402 axum_402_p50 axum_402_p99 _ axum_402_err <<<"$(measure "$axum/estudio/banca-2026")"
read -r gate_402 gate_402_p50 gate_402_p99 _ gate_402_err <<<"$(measure "$gate/estudio/banca-2026")"
read -r express_free express_free_p50 express_free_p99 _ express_free_err <<<"$(measure "$express/catalogo")"
read -r axum_free axum_free_p50 axum_free_p99 _ axum_free_err <<<"$(measure "$axum/catalogo")"
read -r gate_free gate_free_p50 gate_free_p99 _ gate_free_err <<<"$(measure "$gate/catalogo")"
echo "carga después de wrk: $(cut -d' ' -f1-3 /proc/loadavg)"

# Purchases: one bench-compras run per concurrency, the sellers one after the other; its
# RESULTADO lines (purchases/s, p50 ms, p99 ms, count, body bytes) come in the order of the --url
# options.
declare -A buys
for buyers in 8 64; do
  echo "bench-compras: $buyers compradores, ${seconds}s por vendedor; carga antes: $(cut -d' ' -f1-3 /proc/loadavg)"
  "$bin_dir/bench-compras" --compradores "$buyers" --segundos "$seconds" --compras $((seconds * 2000)) \
    --url "$gate" --url "$axum" --url "$express" --url "$axum_study" --url "$express_study" >"$work/compras-$buyers.txt"
  grep -v '^RESULTADO ' "$work/compras-$buyers.txt"
  i=0
  while read -r rate p50 p99 count bytes; do
    buys[$buyers,$i]="$rate $p50 $p99 $count $bytes"
    i=$((i + 1))
  done < <(sed -n 's/^RESULTADO //p' "$work/compras-$buyers.txt")
  [ "$i" = 5 ] || { echo "bench-peer: bench-compras dio $i resultados de 5" >&2; exit 1; }
done
echo "carga después de las compras: $(cut -d' ' -f1-3 /proc/loadavg)"

printf '%-40s %10s %9s %9s %8s\n' "caso" "req/s" "p50 ms" "p99 ms" "errores"
row() { printf '%-40s %10.0f %9.2f %9.2f %8d\n' "$@"; }
row "express 402 /estudio/banca-2026" "$express_402" "$express_402_p50" "$express_402_p99" "$express_402_err"
row "axum 402 /estudio/banca-2026" "$axum_402" "$axum_402_p50" "$axum_402_p99" "$axum_402_err"
row "gate 402 /estudio/banca-2026" "$gate_402" "$gate_402_p50" "$gate_402_p99" "$gate_402_err"
row "express /catalogo (mismo JSON)" "$express_free" "$express_free_p50" "$express_free_p99" "$express_free_err"
row "axum /catalogo (mismo JSON)" "$axum_free" "$axum_free_p50" "$axum_free_p99" "$axum_free_err"
row "gate /catalogo" "$gate_free" "$gate_free_p50" "$gate_free_p99" "$gate_free_err"
printf '%-40s %10s %9s %9s %8s %9s\n' "compras pagadas" "compras/s" "p50 ms" "p99 ms" "compras" "bytes"
sellers=("gate" "axum" "express" "axum con el estudio" "express con el estudio")
for buyers in 8 64; do
  for i in 0 1 2 3 4; do
    read -r rate p50 p99 count bytes <<<"${buys[$buyers,$i]}"
    printf '%-40s %10.0f %9.2f %9.2f %8d %9d\n' "$buyers compradores, ${sellers[$i]}" "$rate" "$p50" "$p99" "$count" "$bytes"
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rate() { echo "${buys[$1,$2]%% *}"; }
echo "402: gate/express req/s $(ratio "$gate_402" "$express_402") (objetivo >= 5), gate/axum req/s $(ratio "$gate_402" "$axum_402") (objetivo >= 1.5); p99 express/gate $(ratio "$express_402_p99" "$gate_402_p99"), axum/gate $(ratio "$axum_402_p99" "$gate_402_p99")"
echo "JSON libre: gate/express req/s $(ratio "$gate_free" "$express_free"), gate/axum req/s $(ratio "$gate_free" "$axum_free")"
# The delivery ceiling: nginx (if installed) sending the study's file, nothing else.
if command -v nginx >/dev/null; then
  port_nginx="$(free_port)"
  cat >"$work/nginx.conf" <<NGINX
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
daemon off;
events { worker_connections 1024; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
  types { application/json json; }
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work; uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$port_nginx; root $studies; }
}
NGINX
  nginx -c "$work/nginx.conf" -p "$work" &
  pids+=($!)
  wait_up "http://127.0.0.1:$port_nginx/banca-2026.json"
  for buyers in 8 64; do
    read -r ceiling _ <<<"$(connections="$buyers" measure "http://127.0.0.1:$port_nginx/banca-2026.json")"
    target="$(awk -v a="$(rate "$buyers" 3)" 'BEGIN { printf "%.0f", 1.5 * a }')"
    printf 'techo con %s conexiones: nginx envía banca-2026.json (%s bytes, sin pago) %.0f/s; 1.5 × axum con el estudio = %s compras/s; gate %.0f compras/s = %.2f del techo\n' \
      "$buyers" "$(stat -c %s "$studies/banca-2026.json")" "$ceiling" "$target" "$(rate "$buyers" 0)" \
      "$(awk -v a="$(rate "$buyers" 0)" -v b="$ceiling" 'BEGIN { print a / b }')"
  done
fi
for buyers in 8 64; do
  echo "compras/s con $buyers compradores: gate/axum $(ratio "$(rate "$buyers" 0)" "$(rate "$buyers" 1)") (objetivo >= 1.5), gate/express $(ratio "$(rate "$buyers" 0)" "$(rate "$buyers" 2)"); con el estudio en la respuesta de los pares: gate/axum $(ratio "$(rate "$buyers" 0)" "$(rate "$buyers" 3)"), gate/express $(ratio "$(rate "$buyers" 0)" "$(rate "$buyers" 4)")"
done
