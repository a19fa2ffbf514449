#!/usr/bin/env bash
# Builds libclassad (from an HTCondor source tree) and our C++ harness
# bench/native/classad-harness.cpp into .bench/, for the same-run ClassAd ratios.
#
# Source of libclassad, first found wins:
#   HTCONDOR_SRC      a checkout or extracted tree holding src/classad (or that
#                     directory itself)
#   HTCONDOR_MIRROR   a bare git mirror of htcondor/htcondor (default
#                     /work/.mirror/htcondor+htcondor/repo); src/classad at
#                     CLASSAD_REF is extracted into .bench/htcondor/<ref>/
#   CLASSAD_REF       the tag, branch or commit of the mirror to build; default
#                     v23.9.6 (the release issue 31's baseline was measured
#                     with); e.g. CLASSAD_REF=v25.13.2 or CLASSAD_REF=HEAD
# Each source gets its own build directory (.bench/libclassad/<ref>/, holding
# the objects, libclassad.a, the harness and VERSION), so builds of several
# refs stay side by side and switching between them rebuilds nothing.
# Needs g++ (C++20) and libpcre2-dev. Prints the harness path on stdout and
# exits 0; otherwise prints why on stderr and exits 2 (no source) or 1.
# Nothing of HTCondor is written outside .bench/ and nothing of it is committed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mirror="${HTCONDOR_MIRROR:-/work/.mirror/htcondor+htcondor/repo}"
ref="${CLASSAD_REF:-v23.9.6}"
cxx="${CXX:-g++}"

# the library's own sources; testers, the fuzzer, XML and the collection
# (views, transactions, index files, queries) are not needed for ads and matching
lib_files="attrrefs classadCache classad common debug exprList exprTree fnCall
  jsonSink jsonSource lexer lexerSource literals matchClassad natural_cmp
  operators shared sink source util value"

if [[ -n "${HTCONDOR_SRC:-}" ]]; then
  if [[ -d "$HTCONDOR_SRC/src/classad" ]]; then src="$HTCONDOR_SRC/src/classad"; else src="$HTCONDOR_SRC"; fi
  [[ -f "$src/classad/matchClassad.h" ]] || { echo "HTCONDOR_SRC=$HTCONDOR_SRC holds no src/classad" >&2; exit 2; }
  version="$(grep -m1 -o 'set(VERSION "[0-9.]*")' "$src/../../CMakeLists.txt" 2>/dev/null | grep -o '[0-9][0-9.]*' || echo unknown) (HTCONDOR_SRC)"
  out="$root/.bench/libclassad/src-$(printf '%s' "$src" | cksum | cut -d' ' -f1)"
elif git --git-dir="$mirror" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  commit="$(git --git-dir="$mirror" rev-parse --verify -q "$ref^{commit}")" ||
    { echo "CLASSAD_REF=$ref names no commit in the mirror $mirror" >&2; exit 2; }
  # the exact tag when there is one, else the nearest tag and the distance from it
  described="$(git --git-dir="$mirror" describe --tags "$commit" 2>/dev/null || echo "$commit")"
  tree="$root/.bench/htcondor/$described"
  src="$tree/src/classad"
  if [[ "$(cat "$tree/COMMIT" 2>/dev/null)" != "$commit" ]]; then
    rm -rf "$tree"
    mkdir -p "$src/classad"
    # file by file: the mirror lacks some large test-data blobs we do not need
    for f in $lib_files; do
      git --git-dir="$mirror" show "$commit:src/classad/$f.cpp" >"$src/$f.cpp"
    done
    git --git-dir="$mirror" ls-tree --name-only "$commit" src/classad/classad/ | while read -r h; do
      git --git-dir="$mirror" show "$commit:$h" >"$src/classad/$(basename "$h")"
    done
    echo "$commit" >"$tree/COMMIT"
  fi
  version="$described"
  out="$root/.bench/libclassad/$described"
else
  echo "no HTCondor source: set HTCONDOR_SRC to a tree holding src/classad (mirror $mirror not found)" >&2
  exit 2
fi

command -v "$cxx" >/dev/null || { echo "no C++ compiler ($cxx)" >&2; exit 1; }
[[ -f /usr/include/pcre2.h ]] || { echo "pcre2.h not found: install libpcre2-dev" >&2; exit 1; }

mkdir -p "$out/obj"
vnum="$(grep -o '^[v]*[0-9]*[.][0-9]*[.][0-9]*' <<<"${version#v}" || true)"
IFS=. read -r vmaj vmin vpat <<<"${vnum:-0.0.0}"
flags=(-std=c++20 -O2 -DNDEBUG -DUNIX -DPCRE2_CODE_UNIT_WIDTH=8 -w -I"$src"
  -DCLASSAD_VERSION="\"${vnum:-0.0.0}\"" -DCLASSAD_VERSION_MAJOR="$vmaj" -DCLASSAD_VERSION_MINOR="$vmin" -DCLASSAD_VERSION_PATCH="$vpat")
objs=()
for f in $lib_files; do
  o="$out/obj/$f.o"
  objs+=("$o")
  if [[ ! -f "$o" || "$src/$f.cpp" -nt "$o" ]]; then
    "$cxx" "${flags[@]}" -c "$src/$f.cpp" -o "$o"
  fi
done
if [[ ! -f "$out/libclassad.a" ]] || [[ -n "$(find "$out/obj" -newer "$out/libclassad.a" -name '*.o')" ]]; then
  rm -f "$out/libclassad.a"
  ar rcs "$out/libclassad.a" "${objs[@]}"
fi
bin="$out/classad-harness"
if [[ ! -f "$bin" || "$here/classad-harness.cpp" -nt "$bin" || "$out/libclassad.a" -nt "$bin" ]]; then
  "$cxx" -std=c++20 -O2 -DNDEBUG -DUNIX -Wall -Wextra -I"$src" "$here/classad-harness.cpp" "$out/libclassad.a" -lpcre2-8 -ldl -o "$bin"
fi
echo "$version" >"$out/VERSION"
echo "$bin"
