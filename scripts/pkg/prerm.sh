#!/bin/sh
# prerm of the hyphae .deb and %preun of the .rpm (scripts/pkg): on
# removal, stop and disable the service. On an upgrade nothing: the
# agent runs on until postinst restarts it on the new binary (rpm runs
# this script of the old package after the new one's %post).
# dpkg calls it with "remove" or "upgrade NEW-VERSION", rpm with the
# number of hyphae packages left (0 on removal).
set -e

case "$1" in
  remove|0) ;;
  *) exit 0 ;;
esac
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
  systemctl disable --now hyphae.service || true
fi
