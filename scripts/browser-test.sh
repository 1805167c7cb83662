#!/usr/bin/env bash
# browser-test.sh [--screenshot docs/inspector.png] - the inspector and /client.js in headless
# Chromium (scripts/browser_test.py), against the built server (`swift build` first).
#
#   bash scripts/browser-test.sh
#   bash scripts/browser-test.sh --screenshot docs/inspector.png   # also retakes the README's picture
#
# Installs what it needs where it is missing: Chromium and its driver from the distribution
# (apt-get), selenium from pip. Where Chromium cannot be installed (no apt-get, no root, no
# network) it says so and exits 0: the check is skipped, not passed. ONLY=<part of a check's name>
# runs the matching checks alone.
# Exit: 0 = passed (or skipped as above), 1 = a check failed, 2 = setup error.
set -uo pipefail
cd "$(dirname "$0")/.."

skip() { echo "browser-test: SKIPPED: $*" >&2; exit 0; }

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    # Another apt may hold the lock for a while (a shared machine, unattended upgrades): wait for
    # it, up to 5 minutes; any other failure (no network, no such package) is final.
    for _ in $(seq 60); do
      if output=$( { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; } 2>&1 ); then break; fi
      case "$output" in *"Could not get lock"*|*"Unable to acquire"*|*"is held by process"*) sleep 5 ;; *) echo "$output" | tail -3 >&2; break ;; esac
    done
  fi
  command -v chromium >/dev/null && command -v chromedriver >/dev/null \
    || skip "Chromium and chromium-driver could not be installed from the distribution's packages (needs apt-get as root and a network)"
fi
if ! python3 -c 'import selenium' 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check selenium 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages selenium \
    || { echo "browser-test: selenium could not be installed from pip" >&2; exit 2; }
fi

BIN="$(swift build --show-bin-path)/storehouse"
[ -x "$BIN" ] || { echo "browser-test: $BIN not found; run swift build first" >&2; exit 2; }
exec python3 scripts/browser_test.py "$BIN" "$@"
