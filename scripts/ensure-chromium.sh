#!/usr/bin/env bash
# Installs Debian's `chromium` when /usr/bin/chromium is missing, so the browser tests
# (test/browser/Browser.test.ts, AiChat.test.ts) have a real browser to drive; does nothing when one is installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
# Test files run side by side, and each may find no browser: one installs while the others wait for
# it here (apt-get would refuse them dpkg's lock), then find it installed.
exec 9>"${TMPDIR:-/tmp}/umg-ensure-chromium.lock"
flock 9
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (a fresh machine's own updates, say) may hold dpkg's lock: wait for it, up to 5 min.
WAIT=(-o DPkg::Lock::Timeout=300)
# apt-get needs root; CI runs as root, a developer machine may need sudo.
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get "${WAIT[@]}" update -qq >/dev/null
$SUDO apt-get "${WAIT[@]}" install -y -qq --no-install-recommends chromium >/dev/null
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: apt-get finished but /usr/bin/chromium is still missing" >&2
  exit 1
fi
echo "ensure-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
