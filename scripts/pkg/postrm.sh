#!/bin/sh
# postrm of the hyphae .deb and %postun of the .rpm (scripts/pkg). A
# removal keeps /var/lib/hyphae (the actor key, so the peer ID, the
# token, the data) and the user; `dpkg --purge hyphae` deletes the data
# dir too (rpm has no purge: rm -rf /var/lib/hyphae by hand). The user
# and group stay (Debian's rule for system users: files may still be
# theirs).
# dpkg calls it with "remove", "purge", "upgrade NEW-VERSION" or
# others, rpm with the number of hyphae packages left (0 on removal).
set -e

case "$1" in
  purge)
    rm -rf /var/lib/hyphae
    ;;
esac
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
  systemctl daemon-reload || true
fi
