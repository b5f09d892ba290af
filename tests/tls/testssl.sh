#!/usr/bin/env bash
# The gate's TLS against testssl.sh (Debian's `testssl.sh` package): the debug gate serves the
# sample dist/ over HTTPS with a fresh self-signed certificate for localhost (trusted with
# --add-ca, so only the server's own configuration is judged), testssl runs every check, and any
# finding of severity HIGH or CRITICAL fails the run. Prints each finding above LOW.
#
#   tests/tls/testssl.sh --bin-dir target/debug
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin_dir="${CARGO_TARGET_DIR:-$root/target}/debug"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "testssl: argumento desconocido $1" >&2; exit 2 ;;
  esac
done
for tool in testssl openssl python3 curl; do
  command -v "$tool" >/dev/null || { echo "testssl: falta $tool" >&2; exit 2; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/testssl.XXXXXX")"
gate_pid=""
cleanup() {
  [ -n "$gate_pid" ] && kill "$gate_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# What a public CA's certificate carries (a year of validity, a CRL distribution point), so only
# the gate's own TLS configuration is judged.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost" -addext "basicConstraints=critical,CA:FALSE" \
  -addext "keyUsage=critical,digitalSignature" -addext "extendedKeyUsage=serverAuth" \
  -addext "crlDistributionPoints=URI:http://localhost/ca.crl" \
  -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
"$bin_dir/generator" build --quiet --content "$root/tests/muestra" --out "$work/dist"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
GATE_LOG=warn "$bin_dir/gate" --dist "$work/dist" --data "$work/var" --listen "127.0.0.1:$port" \
  --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" >"$work/gate.log" 2>&1 &
gate_pid=$!
for _ in $(seq 1 150); do
  curl -s -o /dev/null --cacert "$work/tls.crt" "https://localhost:$port/catalogo" && break
  sleep 0.1
done
curl -sf -o /dev/null --cacert "$work/tls.crt" "https://localhost:$port/catalogo" \
  || { cat "$work/gate.log" >&2; echo "testssl: el gate no respondió por HTTPS" >&2; exit 1; }

echo "testssl: $(dpkg-query -W -f='testssl.sh ${Version}' testssl.sh 2>/dev/null || echo testssl.sh) contra https://localhost:$port"
# testssl exits non-zero for many ordinary reasons; the verdict is read from its JSON.
testssl --quiet --color 0 --warnings off --add-ca "$work/tls.crt" --ip 127.0.0.1 \
  --jsonfile "$work/testssl.json" "https://localhost:$port" >"$work/testssl.log" 2>&1 || true
[ -s "$work/testssl.json" ] || { cat "$work/testssl.log" >&2; echo "testssl: no produjo su informe" >&2; exit 1; }
python3 - "$work/testssl.json" <<'PY'
import json, sys
findings = json.load(open(sys.argv[1]))
order = ["OK", "INFO", "LOW", "MEDIUM", "HIGH", "CRITICAL"]
shown = [f for f in findings if f.get("severity") in ("MEDIUM", "HIGH", "CRITICAL")]
for f in shown:
    print(f"  {f['severity']:<8} {f['id']}: {f.get('finding', '')}")
counts = {s: sum(1 for f in findings if f.get("severity") == s) for s in order}
print("testssl: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n))
bad = [f for f in findings if f.get("severity") in ("HIGH", "CRITICAL")]
if bad:
    sys.exit(f"testssl: {len(bad)} hallazgos HIGH o CRITICAL")
PY
