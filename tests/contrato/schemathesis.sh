#!/usr/bin/env bash
# Schemathesis against a running gate: every operation of dist/public/openapi.json, generated
# inputs (valid and invalid), every answer checked against the schema. Zero failures or exit 1.
#
#   tests/contrato/schemathesis.sh ST GATE GENERATOR
#
# ST is Schemathesis' `st` (tests/contrato/requirements.txt), GATE and GENERATOR the debug
# binaries. It builds the sample content (tests/muestra/) into a temporary dist/, starts the gate in local mode on a free
# loopback port with a temporary --data, runs Schemathesis, and stops the gate.
#
# Every check runs, positive_data_acceptance included: the schemas state what the gate refuses
# with 400 (a `q` of only ASCII signs, a PAYMENT-SIGNATURE that is not standard base64, a
# JSON-RPC object that is neither a request nor a response), and tests/contrato/schemathesis.toml
# counts the paid path's 402 as expected. Checks left out, each for a reason that is the
# contract's, not a failure of it:
# - ignored_auth: no operation declares credentials (payment is not authentication: the paid
#   operation declares x-payment-info, and its 402 is checked like any other answer).
# - use_after_free, ensure_resource_availability, object_level_authorization: nothing is
#   created or deleted through the API (every operation is a GET but MCP's POST).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
st="$1"; gate="$2"; generator="$3"
work="$(mktemp -d)"
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$generator" build --content tests/muestra --out "$work/dist" --quiet
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$gate" --dist "$work/dist" --data "$work/var" --listen "127.0.0.1:$port" --threads 2 >"$work/gate.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  curl -fsS "http://127.0.0.1:$port/salud" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/listo" >/dev/null || { cat "$work/gate.log" >&2; exit 1; }
# From the temporary folder: Schemathesis leaves its own files (.schemathesis/) where it runs.
(cd "$work" && "$st" --config-file "$root/tests/contrato/schemathesis.toml" run "$work/dist/public/openapi.json" \
  --url "http://127.0.0.1:$port" \
  --checks all \
  --exclude-checks ignored_auth,use_after_free,ensure_resource_availability,object_level_authorization \
  --phases examples,coverage,fuzzing \
  --max-examples "${SCHEMATHESIS_EJEMPLOS:-40}" \
  --seed 35 \
  --generation-deterministic \
  --workers 2 \
  --request-timeout 10 \
  --no-color \
  --report junit --report-dir "$work/informe") \
  || { echo "--- gate.log (últimas líneas)"; tail -n 30 "$work/gate.log"; exit 1; }
