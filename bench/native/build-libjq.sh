#!/usr/bin/env bash
# Builds libjq 1.7.1 as a shared library into .bench/libjq/ (and jq-loop.so, our
# C loop timing libjq alone), for the pScheduler
# baseline (bench/native/pscheduler.ts: pScheduler's LimitProcessor in Python,
# its `pyjq` calls answered by our ctypes shim bench/native/pyjq/ over this libjq).
#
# Source of jq, first found wins:
#   JQ_SRC      an extracted jq 1.7.1 tree (a release tarball or a checkout)
#   JQ_MIRROR   a bare git mirror of jqlang/jq (default
#               /work/.mirror/jqlang+jq/repo); tag jq-1.7.1 is extracted into
#               .bench/jq-1.7.1
# Needs gcc, make, autoconf, automake, libtool (a git tree has no configure) and
# oniguruma (Debian's libonig-dev). Prints the library's path on stdout and exits
# 0; otherwise prints why on stderr and exits 2 (no source) or 1.
# Nothing of jq is written outside .bench/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.bench/libjq"
mirror="${JQ_MIRROR:-/work/.mirror/jqlang+jq/repo}"
tag="jq-1.7.1"

if [[ -f "$out/libjq.so" && -f "$out/jq-loop.so" && "$out/jq-loop.so" -nt "$here/jq-loop.c" ]]; then
  echo "$out/libjq.so"
  exit 0
fi

if [[ -n "${JQ_SRC:-}" ]]; then
  [[ -f "$JQ_SRC/src/jq.h" ]] || { echo "JQ_SRC=$JQ_SRC holds no src/jq.h" >&2; exit 2; }
  src="$JQ_SRC"
elif git --git-dir="$mirror" rev-parse --verify -q "$tag" >/dev/null 2>&1; then
  src="$root/.bench/$tag"
  if [[ ! -f "$src/src/jq.h" ]]; then
    rm -rf "$src"
    mkdir -p "$src"
    # the oniguruma submodule is not in the archive: Debian's libonig is used
    git --git-dir="$mirror" archive "$tag" | tar -x -C "$src"
  fi
else
  echo "no jq source: set JQ_SRC to a jq 1.7.1 tree (mirror $mirror has no tag $tag)" >&2
  exit 2
fi

for tool in gcc make; do
  command -v "$tool" >/dev/null || { echo "no $tool" >&2; exit 1; }
done
[[ -f /usr/include/oniguruma.h ]] || { echo "oniguruma.h not found: install libonig-dev" >&2; exit 1; }

cd "$src"
if [[ ! -x configure ]]; then
  command -v autoreconf >/dev/null && command -v libtoolize >/dev/null ||
    { echo "a git tree needs autoconf, automake and libtool to make its configure" >&2; exit 1; }
  autoreconf -i >/dev/null 2>&1
fi
if [[ ! -f Makefile ]]; then
  ./configure --with-oniguruma=/usr --disable-docs --disable-valgrind --disable-maintainer-mode \
    --enable-shared --disable-static CFLAGS="-O2" >"$root/.bench/libjq-configure.log" 2>&1 ||
    { echo "jq's configure failed: see .bench/libjq-configure.log" >&2; exit 1; }
fi
make -j2 src/builtin.inc src/config_opts.inc src/version.h libjq.la >"$root/.bench/libjq-make.log" 2>&1 || { echo "building libjq failed: see .bench/libjq-make.log" >&2; exit 1; }
lib="$(ls .libs/libjq.so.*.*.* 2>/dev/null | head -n1)"
[[ -n "$lib" ]] || { echo "make produced no .libs/libjq.so" >&2; exit 1; }
mkdir -p "$out"
cp "$lib" "$out/libjq.so"
# the C loop that times libjq alone, for the shim's own overhead
gcc -O2 -shared -fPIC -I"$src/src" "$here/jq-loop.c" -L"$out" -l:libjq.so -Wl,-rpath,"$out" -o "$out/jq-loop.so"
echo "$tag" >"$out/VERSION"
echo "$out/libjq.so"
