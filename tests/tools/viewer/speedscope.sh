#!/bin/sh
# SPDX-License-Identifier: MIT
# The trace demo's JSON in a real viewer, as a user would look at it:
# speedscope 1.25 and puppeteer-core from npm (versions pinned by
# package-lock.json), Debian's chromium (apt-get install chromium nodejs
# npm), headless. Fails on any import error or warning in the page's
# console, checks that the three workers are there by name, and takes a
# screenshot (docs/trace-speedscope.png is one). Run by .ci/run after
# make demo-trace; not by make check, which needs neither a network nor
# node.
#
#	tests/tools/viewer/speedscope.sh [JSON [PNG]]
#
# Everything it fetches or writes stays in the clone: build/viewer/ (the
# packages and npm's cache), and the screenshot (default
# build/viewer/trace-speedscope.png).
set -eu
cd "$(dirname "$0")/../../.."
json=${1:-build/gcc-x86_64/trace_demo.json}
out=build/viewer
png=${2:-$out/trace-speedscope.png}
chromium=${CHROMIUM:-/usr/bin/chromium}

for need in node npm; do
	command -v $need >/dev/null 2>&1 ||
		{ echo "speedscope.sh: no $need (apt-get install nodejs npm)" >&2; exit 1; }
done
[ -x "$chromium" ] || { echo "speedscope.sh: no $chromium (apt-get install chromium)" >&2; exit 1; }
[ -f "$json" ] || { echo "speedscope.sh: no $json (make demo-trace)" >&2; exit 1; }

mkdir -p "$out"
cp tests/tools/viewer/package.json tests/tools/viewer/package-lock.json "$out/"
# npm's cache in the clone too; no scripts of the packages run.
npm_config_cache="$PWD/$out/npm-cache" npm_config_update_notifier=false \
	npm ci --prefix "$out" --no-audit --no-fund --ignore-scripts --loglevel=error
# Node finds the packages from the script's own directory: run a copy there.
cp tests/tools/viewer/speedscope.mjs "$out/"
HOME="$PWD/$out/home" XDG_CONFIG_HOME="$PWD/$out/home/.config" \
XDG_CACHE_HOME="$PWD/$out/home/.cache" CHROMIUM="$chromium" \
	node "$out/speedscope.mjs" "$out/node_modules/speedscope/dist/release" \
		"$json" "$png" trace_demo worker-0 worker-1 worker-2
