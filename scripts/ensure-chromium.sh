#!/usr/bin/env bash
# Installs Debian's `chromium` when /usr/bin/chromium is missing, so the browser test
# (test/browser/Browser.test.ts) has a real browser to drive; does nothing when one is installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# apt-get needs root; CI runs as root, a developer machine may need sudo.
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
  exit 1
fi
echo "ensure-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
