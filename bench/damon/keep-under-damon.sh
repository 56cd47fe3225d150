#!/usr/bin/env bash
# How long warmth lasts under proactive reclaim (docs/operators.md, "How long warmth lasts under proactive reclaim").
# Three files of SIZE_MIB each are made cold, read once, then: one left alone, one under `keep --mapping look`, one
# under `keep` (default: mapping held). `resident` is run on each at 0, 60, 120 and 180 s (its output verbatim).
# Usage: bench/damon/keep-under-damon.sh [TOOL...]   (default: the NativeAOT-free build under tests/, run by dotnet)
# Needs Linux and a directory on a disk-backed file system (DIR, default /var/tmp); takes a little over 3 minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -gt 0 ]; then tool=("$@"); else tool=(dotnet "$root/tests/Sharpi.Prefault.Cli.Tests/bin/Release/net10.0/sharpi-prefault.dll"); fi
size_mib=${SIZE_MIB:-256}
dir=$(mktemp -d "${DIR:-/var/tmp}/sharpi-damon.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
echo "host: $(hostname) $(uname -r), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
scheme=/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0
if [ -r "$scheme/action" ]; then
  echo "damon: state $(cat /sys/kernel/mm/damon/admin/kdamonds/0/state), action $(cat $scheme/action)," \
    "min age $(cat $scheme/access_pattern/age/min) x aggr $(cat $scheme/../../monitoring_attrs/intervals/aggr_us) us," \
    "quota $(cat $scheme/quotas/bytes) B per $(cat $scheme/quotas/reset_interval_ms) ms"
else
  echo "damon: no kdamond 0 scheme under /sys/kernel/mm/damon/admin (the figures below show ordinary reclaim only)"
fi
for name in alone keep-look keep-held; do
  head -c $((size_mib << 20)) /dev/urandom > "$dir/$name.bin"
done
sync
"${tool[@]}" evict "$dir"/*.bin >/dev/null
for name in alone keep-look keep-held; do cat "$dir/$name.bin" > /dev/null; done
"${tool[@]}" keep "$dir/keep-look.bin" --mapping look > "$dir/keep-look.log" 2>&1 & pids+=($!)
"${tool[@]}" keep "$dir/keep-held.bin" > "$dir/keep-held.log" 2>&1 & pids+=($!)
held_pid=$!
start=$(date +%s)
for t in 0 60 120 180; do
  while [ $(( $(date +%s) - start )) -lt $t ]; do sleep 1; done
  echo "--- t=${t}s ($(date -u +%H:%M:%S))"
  for name in alone keep-look keep-held; do
    echo "[$name] $("${tool[@]}" resident "$dir/$name.bin" | tail -n 1)"
  done
  rss=$(awk '/^Rss:/{s+=$2} END{print s}' <(grep -A4 keep-held.bin /proc/$held_pid/smaps 2>/dev/null) 2>/dev/null || echo "?")
  echo "[keep-held] its mapping's Rss: ${rss:-0} kB"
done
for p in "${pids[@]}"; do kill -TERM "$p"; done
wait "${pids[@]}" || true
pids=()
echo "--- keep --mapping look:"; cat "$dir/keep-look.log"
echo "--- keep (held):"; cat "$dir/keep-held.log"
