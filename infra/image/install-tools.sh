#!/usr/bin/env bash
# The programs `npm run image` (and so the image test) needs, from Debian's packages: installed
# once (apt-get update first), skipped when present. Part of `npm test`, so the README's test
# command installs them on a fresh machine as .ci/run does (infra/image/tools.ts NEEDED).
set -euo pipefail
if command -v mmdebstrap >/dev/null && command -v umoci >/dev/null && command -v unshare >/dev/null; then exit 0; fi
sudo=$([ "$(id -u)" = 0 ] || echo sudo)
$sudo apt-get update
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mmdebstrap umoci util-linux tar
