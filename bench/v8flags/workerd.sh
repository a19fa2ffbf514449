#!/bin/sh
# workerd with V8 flags, for MINIFLARE_WORKERD_PATH: $WORKERD_V8_FLAGS (space separated) are written into
# the config Miniflare sends on standard input (patch-config.mjs), and workerd's output is line-buffered
# so that each line (--trace-gc, --trace-deopt) arrives when it is printed. exec keeps the process id, so
# Miniflare's SIGKILL still stops workerd.
here=$(dirname "$0")
config=$(mktemp)
node "$here/patch-config.mjs" $WORKERD_V8_FLAGS > "$config" || exit 1
exec < "$config"
rm -f "$config"
exec stdbuf -oL "$WORKERD_BINARY" "$@"
