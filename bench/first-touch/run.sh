#!/usr/bin/env bash
# How much slower a first pass over memory runs than later ones, with nothing of the library in it (first-touch.c says
# what each kind of memory is): what any row's "x warm" is up against on this machine. Builds first-touch.c with cc,
# runs it on FILE (default: a 1 GiB file of random bytes it makes once under $TMPDIR) on one thread and on two (the
# bench's first request runs on two), as the machine is; then, as root on a VM that reports free pages to its host,
# both again with reporting suspended (page_reporting_order 11) after faulting in and freeing the free memory,
# restoring the order however the script ends.
#
#   bench/first-touch/run.sh [FILE] [ITERATIONS]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=${TMPDIR:-/tmp}/sharpi-first-touch
mkdir -p "$work"
cc -O2 -march=native -pthread -o "$work/first-touch" "$here/first-touch.c"

file=${1:-$work/first-touch-1G.bin}
iterations=${2:-10}
if [[ ! -e $file ]]; then
    echo "Making $file (1 GiB of random bytes) once."
    head -c 1G /dev/urandom > "$file.partial" && mv "$file.partial" "$file"
fi

order=/sys/module/page_reporting/parameters/page_reporting_order
echo "== as the machine is (page_reporting_order: $(cat "$order" 2>/dev/null || echo none))"
"$work/first-touch" "$file" "$iterations"
"$work/first-touch" "$file" "$iterations" --threads 2

if [[ -w $order ]] && grep -qs 0x0005 /sys/bus/virtio/devices/*/device; then
    original=$(cat "$order")
    trap 'echo "$original" > "$order"; echo "page_reporting_order restored to $original"' EXIT
    echo 11 > "$order"
    echo "== free page reporting suspended (page_reporting_order $original -> 11)"
    "$work/first-touch" "$file" "$iterations" --back
    "$work/first-touch" "$file" "$iterations" --threads 2
else
    echo "== not run with free page reporting suspended: no virtio balloon here, or $order is not writable (root)"
fi
