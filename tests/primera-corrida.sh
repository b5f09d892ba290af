#!/usr/bin/env bash
# The first run, timed (BENCHMARKS.md, "First run"): a fresh clone of this repository at COMMIT,
# an empty target directory, tienda's release build with cargo's --timings added, and
# `./tienda servir` timed until it prints "la tienda está abierta" (the purchase it makes next is
# paid within a second). Not a test: it takes minutes and wants a quiet machine.
#
#   tests/primera-corrida.sh COMMIT NAME     # clone in $WORK/NAME, target in $WORK/target-NAME
#
# WORK defaults to /tmp/primera-corrida. The crates must already be downloaded (cargo fetch):
# what is timed is the build, not the network. The --timings report stays in the target folder.
set -u
commit="$1"; name="$2"
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-/tmp/primera-corrida}"
dir="$work/$name"; target="$work/target-$name"
rm -rf "$dir" "$target"; mkdir -p "$work"
git clone -q "$repo" "$dir" && cd "$dir" && git checkout -q "$commit" || exit 2
sed -i 's/cargo build --release --locked/cargo build --release --timings --locked/' tienda
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
start=$(date +%s.%N)
CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 ./tienda servir --escuchar "127.0.0.1:$port" > "$dir/servir.log" 2>&1 &
pid=$!
while ! grep -q 'la tienda está abierta' "$dir/servir.log" 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { echo "$name: tienda servir terminó sin abrir"; tail -20 "$dir/servir.log"; exit 1; }
  sleep 0.5
done
end=$(date +%s.%N)
echo "$name ($commit): $(python3 -c "print(round($end - $start, 1))") s hasta 'la tienda está abierta'"
sleep 2
kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
grep -o 'Total units:</td><td>[0-9]*\|Total time:</td><td>[^<]*' "$target/cargo-timings/cargo-timing.html" | sed 's/<\/td><td>/ /'
