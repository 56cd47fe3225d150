#!/usr/bin/env bash
# Fetches a prebuilt llama.cpp (linux-x64, CPU) for the LlamaCpp sample and the Engines/LlamaCpp tests: the libraries
# node-llama-cpp ships in its npm package @node-llama-cpp/linux-x64. Needs npm and the npm registry; the libraries land
# in samples/LlamaCpp/native/ (ignored by git; never commit them). The tests and the sample skip when they are absent.
#
#   samples/LlamaCpp/get-llama.sh            # the version the sample's P/Invoke layouts were checked against
#   SHARPI_LLAMA_LIB=$PWD/samples/LlamaCpp/native/libllama.so dotnet test ...   # or point anywhere else
#
# The package's 3.22.1 bundles llama.cpp commit 0ad4a86 (its libllama.v0.5.0.so, built with GCC 11 on Ubuntu 22.04;
# glibc 2.35 or newer). LlamaNative.cs's struct layouts are that commit's llama.h: another version may differ, and
# LlamaNative checks the defaults it reads before it uses them.
set -euo pipefail

version="${1:-3.22.1}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/native"

command -v npm >/dev/null || { echo "get-llama.sh: npm is not installed (apt-get install npm, or get Node.js)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@node-llama-cpp/linux-x64@$version" >/dev/null)
tar -xzf "$work"/node-llama-cpp-linux-x64-"$version".tgz -C "$work"

bins="$work/package/bins/linux-x64"
ls "$bins"/libllama*.so >/dev/null 2>&1 \
  || { echo "get-llama.sh: no libllama*.so under bins/linux-x64 of the package; its layout changed" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest"
# libllama and the ggml libraries find each other through their RUNPATH ($ORIGIN); the CPU backend variants
# (libggml-cpu-<cpu>.so) are loaded by ggml_backend_load_all_from_path, which picks the best one for this CPU.
cp "$bins"/*.so "$bins"/_nlcBuildMetadata.json "$dest"/
cp "$work/package/LICENSE" "$dest/LICENSE.node-llama-cpp"
# One stable name for the sample and the tests to load.
lib="$(cd "$dest" && ls libllama.v*.so 2>/dev/null | head -n1 || true)"
[ -n "$lib" ] && ln -sf "$lib" "$dest/libllama.so"

echo "llama.cpp from @node-llama-cpp/linux-x64@$version in $dest:"
ls -1 "$dest"
