#!/usr/bin/env bash
# Builds libjq 1.7.1 as a shared library into .bench/libjq/ (and jq-loop.so, our
# C loop timing libjq alone, and jq-time, bench/jq.ts's libjq baseline), for the pScheduler
# baseline (bench/native/pscheduler.ts: pScheduler's LimitProcessor in Python,
# its `pyjq` calls answered by our ctypes shim bench/native/pyjq/ over this libjq).
#
# Source of jq, first found wins:
#   JQ_SRC      an extracted jq 1.7.1 tree (a release tarball or a checkout)
#   JQ_MIRROR   a bare git mirror of jqlang/jq (default
#               /work/.mirror/jqlang+jq/repo); tag jq-1.7.1 is extracted into
#               .bench/jq-1.7.1. A mirror without the tag (some snapshots lack
#               it) is used at the commit the tag points to, 71c2ab5 ("Merge
#               pull request from GHSA-686w-5m7m-54vc", 2023-12-13), when it holds it.
# Either way the tree must say it is 1.7.1: its NEWS.md starts "# 1.7.1".
# JQ_CHECK_ONLY=1 stops after choosing and checking the source, before building:
# prints "<tag, commit or JQ_SRC> <commit or path>" (test/jq/build-libjq.test.ts).
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
# the commit jq's tag jq-1.7.1 points to (its NEWS.md opens with "# 1.7.1")
release="71c2ab509a8628dbbad4bc7b3f98a64aa90d3297"

# whether the NEWS.md on stdin opens with "# 1.7.1" (sed reads it all: no SIGPIPE under pipefail)
news_is_171() { [[ "$(sed -n 1p)" == "# 1.7.1" ]]; }

if [[ -z "${JQ_CHECK_ONLY:-}" && -f "$out/libjq.so" && "$out/jq-loop.so" -nt "$here/jq-loop.c" && "$out/jq-time" -nt "$here/jq-time.c" ]]; then
  echo "$out/libjq.so"
  exit 0
fi

if [[ -n "${JQ_SRC:-}" ]]; then
  [[ -f "$JQ_SRC/src/jq.h" ]] || { echo "JQ_SRC=$JQ_SRC holds no src/jq.h" >&2; exit 2; }
  news_is_171 <"$JQ_SRC/NEWS.md" 2>/dev/null ||
    { echo "JQ_SRC=$JQ_SRC is not jq 1.7.1 (its NEWS.md does not start with \"# 1.7.1\")" >&2; exit 2; }
  src="$JQ_SRC"
  rev="JQ_SRC"
  built_from="JQ_SRC=$JQ_SRC"
  [[ -z "${JQ_CHECK_ONLY:-}" ]] || { echo "$rev $src"; exit 0; }
else
  if git --git-dir="$mirror" rev-parse --verify -q "$tag^{commit}" >/dev/null 2>&1; then
    rev="$tag"
  elif git --git-dir="$mirror" cat-file -e "$release^{commit}" 2>/dev/null; then
    echo "build-libjq: mirror $mirror has no tag $tag; using the commit it points to, $release" >&2
    rev="$release"
  else
    echo "no jq source: set JQ_SRC to a jq 1.7.1 tree (mirror $mirror has neither tag $tag nor its commit $release)" >&2
    exit 2
  fi
  git --git-dir="$mirror" show "$rev:NEWS.md" 2>/dev/null | news_is_171 ||
    { echo "no jq source: $rev in mirror $mirror is not jq 1.7.1 (its NEWS.md does not start with \"# 1.7.1\")" >&2; exit 2; }
  [[ -z "${JQ_CHECK_ONLY:-}" ]] || { echo "$rev $(git --git-dir="$mirror" rev-parse "$rev^{commit}")"; exit 0; }
  src="$root/.bench/$tag"
  built_from="commit $(git --git-dir="$mirror" rev-parse "$rev^{commit}") (mirror's $([[ "$rev" == "$tag" ]] && echo "tag $tag" || echo "commit, no tag"))"
  if [[ ! -f "$src/src/jq.h" || "$(cat "$src/.commit" 2>/dev/null)" != "$(git --git-dir="$mirror" rev-parse "$rev^{commit}")" ]]; then
    rm -rf "$src"
    mkdir -p "$src"
    # the oniguruma submodule is not in the archive: Debian's libonig is used
    git --git-dir="$mirror" archive "$rev" | tar -x -C "$src"
    git --git-dir="$mirror" rev-parse "$rev^{commit}" >"$src/.commit"
  fi
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
# bench/jq.ts's libjq rows: one program timed in C
gcc -O2 -I"$src/src" "$here/jq-time.c" -L"$out" -l:libjq.so -Wl,-rpath,"$out" -o "$out/jq-time"
echo "$tag, $built_from" >"$out/VERSION"
echo "$out/libjq.so"
