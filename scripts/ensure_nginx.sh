#!/usr/bin/env bash
# Debian's nginx-light, when it is missing: the round-robin proxy in front of several `devkb serve`
# processes (tests/integration/test_replicas.py, and `make bench`'s replicas run). Never fails:
# what needs nginx skips or reports, saying so.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "==> installing nginx-light (Debian package)"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nginx-light >/dev/null; } \
    || echo "WARNING: could not install nginx; what runs several servers behind it will skip" >&2
fi
exit 0
