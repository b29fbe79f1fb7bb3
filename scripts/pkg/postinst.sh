#!/bin/sh
# postinst of the hyphae .deb and %post of the .rpm (scripts/pkg): the
# account, the state dir, the key, then the service where systemd runs.
# dpkg calls it with "configure OLD-VERSION" (OLD-VERSION empty on a first
# install), rpm with the number of hyphae packages installed (1 on a first
# install, 2 on an upgrade).
set -e

STATE=/var/lib/hyphae
CONFIG=/etc/hyphae/hyphae.yaml
say() { echo "hyphae: $*"; }

#ACCOUNT# scripts/account.sh goes here (scripts/pkg)

case "$1" in
  configure) first=no; [ -n "${2:-}" ] || first=yes ;;
  1) first=yes ;;
  [0-9]*) first=no ;;
  *) exit 0 ;; # abort-upgrade and the like: nothing was changed
esac

hyphae_account

# The packaged config is /etc/hyphae/hyphae.yaml (dpkg and rpm keep it,
# changed, on upgrade); the agent reads <data dir>/hyphae.yaml, so that is
# a link to it. A hyphae.yaml already there (scripts/install.sh made it)
# is kept and stays the one read. (An admin may have deleted the config:
# dpkg leaves it deleted.)
if [ -e "$CONFIG" ]; then
  chgrp hyphae "$CONFIG"
  chmod 0640 "$CONFIG"
fi
if [ ! -e "$STATE/hyphae.yaml" ] && [ ! -L "$STATE/hyphae.yaml" ]; then
  ln -s "$CONFIG" "$STATE/hyphae.yaml"
elif [ "$(readlink "$STATE/hyphae.yaml" || true)" != "$CONFIG" ]; then
  say "$STATE/hyphae.yaml is the config read, not $CONFIG"
fi
if [ ! -e "$STATE/actor.key" ]; then
  as_hyphae /usr/bin/hyphae init --data-dir "$STATE" >/dev/null
fi
say "peer ID $(hyphae_peer /usr/bin/hyphae)"

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
  systemctl daemon-reload
  # Enabled on the first install only: an upgrade leaves a disabled
  # service disabled, and restarts an enabled one on the new binary.
  [ "$first" = no ] || systemctl enable hyphae.service
  if systemctl is-enabled --quiet hyphae.service; then
    systemctl restart hyphae.service
    say "hyphae.service (re)started: systemctl status hyphae; journalctl -u hyphae"
  fi
else
  say "no systemd here: not started (runuser -u hyphae -- /usr/bin/hyphae run --data-dir $STATE)"
fi
