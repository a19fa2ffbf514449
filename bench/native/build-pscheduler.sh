#!/usr/bin/env bash
# Prepares pScheduler's limit processor to run beside our limits engine in the
# same bench run (bench/native/pscheduler.ts): libjq 1.7.1 (build-libjq.sh), the
# `pscheduler` Python package and pScheduler's jq library extracted into
# .bench/pscheduler/, and a check that Debian's python3 imports it with our
# `pyjq` shim (bench/native/pyjq/).
#
# Source of pScheduler: PSCHEDULER_SRC (a checkout) or the bare git mirror
# PSCHEDULER_MIRROR (default /work/.mirror/perfsonar+pscheduler/repo, its HEAD).
# Python: PSCHEDULER_PYTHON (default /usr/bin/python3) with Debian's
#   python3-netaddr python3-isodate python3-tz python3-jsonschema python3-radix
#   python3-dnspython python3-psycopg2 python3-netifaces python3-tzlocal
#   python3-pycurl python3-ntplib python3-jinja2 python3-psutil python3-dateutil
# Prints "<libjq> <package root> <jq library dir> <version>" on stdout and exits
# 0; otherwise prints why on stderr and exits 2 (no source) or 1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/.bench/pscheduler"
mirror="${PSCHEDULER_MIRROR:-/work/.mirror/perfsonar+pscheduler/repo}"
python="${PSCHEDULER_PYTHON:-/usr/bin/python3}"
pkg="python-pscheduler/pscheduler/pscheduler"
jqlib="pscheduler-jq-library/pscheduler-jq-library"

libjq="$(bash "$here/build-libjq.sh")"

if [[ -n "${PSCHEDULER_SRC:-}" ]]; then
  [[ -d "$PSCHEDULER_SRC/$pkg/limitprocessor" ]] || { echo "PSCHEDULER_SRC=$PSCHEDULER_SRC holds no $pkg" >&2; exit 2; }
  src="$PSCHEDULER_SRC"
  version="$(git -C "$src" describe --tags --always 2>/dev/null || echo unknown) (PSCHEDULER_SRC)"
  mkdir -p "$out/python" "$out/jq/pscheduler"
  rm -rf "$out/python/pscheduler"
  cp -r "$src/$pkg" "$out/python/pscheduler"
  cp "$src/$jqlib/"*.jq "$out/jq/pscheduler/"
elif git --git-dir="$mirror" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  head="$(git --git-dir="$mirror" rev-parse HEAD)"
  if [[ "$(cat "$out/COMMIT" 2>/dev/null)" != "$head" ]]; then
    rm -rf "$out"
    mkdir -p "$out/tree" "$out/python" "$out/jq/pscheduler"
    git --git-dir="$mirror" archive HEAD "$pkg" "$jqlib" | tar -x -C "$out/tree"
    mv "$out/tree/$pkg" "$out/python/pscheduler"
    mv "$out/tree/$jqlib/"*.jq "$out/jq/pscheduler/"
    rm -rf "$out/tree"
    echo "$head" >"$out/COMMIT"
  fi
  version="$(git --git-dir="$mirror" describe --tags HEAD 2>/dev/null || echo "$head") (mirror HEAD)"
else
  echo "no pScheduler source: set PSCHEDULER_SRC to a checkout (mirror $mirror not found)" >&2
  exit 2
fi

[[ -x "$python" ]] || { echo "no $python (Debian's python3)" >&2; exit 1; }
if ! err="$(PYJQ_LIBJQ="$libjq" PYTHONPATH="$here/pyjq:$out/python" "$python" -c \
  'import pscheduler.limitprocessor.limitprocessor' 2>&1)"; then
  echo "pScheduler's package does not import: ${err##*$'\n'} (see the Debian packages in build-pscheduler.sh)" >&2
  exit 1
fi
echo "$libjq $out/python $out/jq $version"
