#!/usr/bin/env bash
# The tool as operators run it (docs/operators.md): podman from Debian, an image built from Debian packages (a
# debootstrap root file system from this machine's apt mirror, no registry), the NativeAOT sharpi-prefault in it,
# podman's default seccomp profile, the weights on a read-only bind mount, `keep` as a sidecar container, `resident`
# from another container, and `lock --pidfile` on a volume that two containers share.
#
# Each check prints PASS or FAIL with what it saw; the last lines are a summary, and the exit status is the number of
# failed checks (0: all passed). Everything it made is removed on exit (containers, volume, the test image, temp files);
# the base image (sharpi-prefault-debian-base, the debootstrap root file system, about 100 MB) is kept for the next run
# unless CLEAN_BASE=1.
#
# Usage (root): tests/container/run.sh
#   SHARPI_BIN=path   use this sharpi-prefault executable instead of publishing one (NativeAOT, net10.0)
#   MIRROR=url        the Debian mirror for debootstrap (default: the first URIs of /etc/apt/sources.list*)
#   SUITE=bookworm    the Debian suite of the base image
#   CLEAN_BASE=1      remove the base image too
# Not part of .ci/run: it installs podman and debootstrap when they are missing, and the first run debootstraps
# (minutes).
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
suite=${SUITE:-bookworm}
base=localhost/sharpi-prefault-debian-base:$suite
image=localhost/sharpi-prefault-test:$$
tag=sharpi-ct-$$
work=$(mktemp -d /var/tmp/sharpi-container.XXXXXX)
pass=0
fail=0
results=()

say() { echo "== $*"; }
check() { # check NAME STATUS DETAIL: STATUS 0 is PASS
  local name=$1 status=$2 detail=$3
  if [ "$status" -eq 0 ]; then pass=$((pass + 1)); results+=("PASS  $name"); echo "PASS  $name: $detail"
  else fail=$((fail + 1)); results+=("FAIL  $name"); echo "FAIL  $name: $detail"; fi
}
cleanup() {
  podman rm -f -t 0 "$tag-keep" "$tag-lock1" "$tag-lock2" >/dev/null 2>&1
  podman volume rm -f "$tag-run" >/dev/null 2>&1
  podman rmi -f "$image" >/dev/null 2>&1
  [ "${CLEAN_BASE:-0}" = 1 ] && podman rmi -f "$base" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
die() { echo "cannot run: $*" >&2; echo "SUMMARY: not run ($*)"; exit 125; }

[ "$(id -u)" -eq 0 ] || die "run as root (podman's rootful mode, debootstrap, posix_fadvise eviction of root's files)"
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
  say "installing podman and debootstrap from Debian"
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y podman debootstrap; } >"$work/apt.log" 2>&1 \
    || die "apt-get install podman debootstrap failed (see the tail below)$(tail -5 "$work/apt.log")"
fi
say "host: $(uname -r), $(podman --version), cgroup $(podman info --format '{{.Host.CgroupsVersion}}' 2>/dev/null), $(date -u +%Y-%m-%dT%H:%M:%SZ)"

# ---- the executable: NativeAOT, as .ci/run publishes it
bin=${SHARPI_BIN:-}
if [ -z "$bin" ]; then
  say "publishing sharpi-prefault (NativeAOT, linux-x64, net10.0)"
  dotnet publish "$root/src/Sharpi.Prefault.Cli" -c Release -r linux-x64 -f net10.0 -p:NativeAot=true \
    -o "$work/publish" >"$work/publish.log" 2>&1 || die "dotnet publish failed: $(tail -5 "$work/publish.log")"
  bin=$work/publish/sharpi-prefault
fi
[ -x "$bin" ] || die "no executable at $bin"
host_tool=$bin

# ---- the image: a debootstrap root file system (minbase) imported once as the base, the executable added on top
if ! podman image exists "$base"; then
  mirror=${MIRROR:-$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)}
  mirror=${mirror:-http://deb.debian.org/debian}
  say "debootstrap --variant=minbase $suite from $mirror (first run only)"
  debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || die "debootstrap failed: $(tail -5 "$work/debootstrap.log")"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | podman import -q --change 'CMD ["/bin/bash"]' - "$base" >/dev/null \
    || die "podman import of the root file system failed"
  rm -rf "$work/rootfs"
fi
# ---- how containers can run here: podman's defaults first; where they fail (crun refuses cgroup v1/v2 hybrid mode;
# a host without CAP_SYS_RESOURCE cannot give a container podman's default nofile and nproc limits), runc with the
# limits lowered. Everything else (seccomp, capabilities, mounts) stays podman's default.
opts=()
if ! probe=$(podman run --rm "$base" true 2>&1); then
  say "podman's defaults cannot run a container here: $probe"
  command -v runc >/dev/null || { apt-get install -y runc >"$work/apt-runc.log" 2>&1 || die "no runc to fall back on"; }
  opts=(--runtime runc --ulimit nofile=1024:4096 --ulimit nproc=4096:4096)
  probe=$(podman run --rm "${opts[@]}" "$base" true 2>&1) || die "runc with lowered limits failed too: $probe"
  say "running every container with: ${opts[*]}"
fi
mkdir -p "$work/ctx"
cp "$bin" "$work/ctx/sharpi-prefault"
cat >"$work/ctx/Containerfile" <<EOF
FROM $base
COPY sharpi-prefault /usr/local/bin/sharpi-prefault
ENTRYPOINT ["/usr/local/bin/sharpi-prefault"]
EOF
podman build -q -t "$image" "$work/ctx" >"$work/build.log" 2>&1 || die "podman build failed: $(tail -5 "$work/build.log")"
say "image $image from $base ($(podman image inspect --format '{{.Size}}' "$image") bytes)"

# ---- the weights: a 64 MiB file, read-only in every container
mkdir -p "$work/models"
head -c $((64 << 20)) /dev/urandom >"$work/models/weights.bin"
weights=/models/weights.bin
run() { podman run --rm "${opts[@]}" -v "$work/models:/models:ro" "$image" "$@"; }
seccomp_profile=$(podman info --format json 2>/dev/null | sed -n 's/.*"seccompProfilePath": *"\([^"]*\)".*/\1/p' | head -1)

# 1. The default seccomp profile is in force (no --security-opt given), and the tool runs under it.
mode=$(podman run --rm "${opts[@]}" --entrypoint /bin/sh "$image" -c 'grep ^Seccomp: /proc/self/status' 2>&1)
[[ $mode == *2 ]]; check "default seccomp profile in force" $? "$mode (profile $seccomp_profile)"

# 2. touch through the read-only bind mount, then resident from another container.
"$host_tool" evict "$work/models/weights.bin" >/dev/null
out=$(run touch "$weights" 2>&1); rc=$?
[ $rc -eq 0 ]; check "touch on a read-only bind mount" $? "rc $rc: $(echo "$out" | tail -1)"
out=$(run resident "$weights" --min 99 2>&1); rc=$?
[ $rc -eq 0 ]; check "resident --min 99 from another container after touch" $? "rc $rc: $out"

# 3. keep as a sidecar: its first look, then pages taken from the page cache behind its back come back (or, with
#    the default held mapping, are never taken: evict reports them kept), as the probe in another container sees.
podman run -d "${opts[@]}" --name "$tag-keep" -v "$work/models:/models:ro" "$image" keep "$weights" --interval 1s >/dev/null
ok=1
for _ in $(seq 100); do podman logs "$tag-keep" 2>&1 | grep -q 'look 1:' && { ok=0; break; }; sleep 0.2; done
check "keep sidecar: first look" $ok "$(podman logs "$tag-keep" 2>&1 | head -2 | tr '\n' ' ')"
evicted=$("$host_tool" evict "$work/models/weights.bin" 2>&1 | head -1)
sleep 3
out=$(run resident "$weights" --min 99 2>&1); rc=$?
[ $rc -eq 0 ]; check "keep sidecar: warm 3 s after an evict, as another container sees" $? "evict said: $evicted; resident rc $rc: $out"
podman stop -t 10 "$tag-keep" >/dev/null 2>&1
code=$(podman inspect --format '{{.State.ExitCode}}' "$tag-keep")
last=$(podman logs "$tag-keep" 2>&1 | tail -1)
[ "$code" = 0 ] && [[ $last == stopped* ]]; check "keep sidecar: podman stop (SIGTERM) ends it with 0 and a last line" $? "exit $code, last line: $last"

# 4. lock with a pid file on a volume two containers share: the second must not take over the first's pid file.
#    (Locking needs RLIMIT_MEMLOCK or CAP_IPC_LOCK: the capability is given to both containers as an operator would.)
podman volume create "$tag-run" >/dev/null
lockrun() { podman run "${opts[@]}" -v "$work/models:/models:ro" -v "$tag-run:/run/shared" --cap-add IPC_LOCK "$@"; }
lockrun -d --name "$tag-lock1" "$image" lock "$weights" --pidfile /run/shared/lock.pid >/dev/null
ok=1
for _ in $(seq 100); do
  pidfile=$(podman run --rm "${opts[@]}" -v "$tag-run:/run/shared" --entrypoint /bin/cat "$image" /run/shared/lock.pid 2>/dev/null) && { ok=0; break; }
  sleep 0.2
done
check "lock 1 writes its pid file on the shared volume" $ok "pid file: $(echo "$pidfile" | tr '\n' ' ')$(podman logs "$tag-lock1" 2>&1 | tail -1)"
lockrun --name "$tag-lock2" "$image" lock "$weights" --pidfile /run/shared/lock.pid >"$work/lock2.out" 2>&1 &
lock2=$!
for _ in $(seq 25); do kill -0 $lock2 2>/dev/null || break; sleep 0.2; done
if kill -0 $lock2 2>/dev/null; then
  podman stop -t 10 "$tag-lock2" >/dev/null 2>&1; wait $lock2; rc=$?
  refused=1; how="it kept running (took the pid file for stale?), stopped by SIGTERM with $rc"
else
  wait $lock2; rc=$?; refused=$(( rc == 0 )); how="it exited $rc"
fi
after=$(podman run --rm "${opts[@]}" -v "$tag-run:/run/shared" --entrypoint /bin/cat "$image" /run/shared/lock.pid 2>&1)
[ $refused -eq 0 ]; check "lock 2 (another pid namespace) refuses the live lock's pid file" $? "$how: $(tail -2 "$work/lock2.out" | tr '\n' ' ')"
[ "$after" = "$pidfile" ]; check "lock 1's pid file is intact after lock 2" $? "before: $(echo "$pidfile" | tr '\n' ' ') after: $(echo "$after" | tr '\n' ' ')"
running=$(podman inspect --format '{{.State.Running}}' "$tag-lock1")
before=$(podman run --rm "${opts[@]}" -v "$tag-run:/run/shared" --entrypoint /bin/sh "$image" -c 'test -e /run/shared/lock.pid && echo present || echo absent')
podman stop -t 10 "$tag-lock1" >/dev/null 2>&1
code=$(podman inspect --format '{{.State.ExitCode}}' "$tag-lock1")
gone=$(podman run --rm "${opts[@]}" -v "$tag-run:/run/shared" --entrypoint /bin/sh "$image" -c 'test -e /run/shared/lock.pid && echo present || echo removed')
[ "$running" = true ] && [ "$before" = present ] && [ "$code" = 0 ] && [ "$gone" = removed ]
check "lock 1: still running after lock 2, exits 0 on SIGTERM and removes its own pid file" $? "running $running, pid file $before before its SIGTERM and $gone after, exit $code; $(podman logs "$tag-lock1" 2>&1 | tail -1)"

echo
echo "SUMMARY: $pass passed, $fail failed"
printf '  %s\n' "${results[@]}"
exit "$fail"
