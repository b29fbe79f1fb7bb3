#!/bin/sh
# Install (or upgrade) a Hyphae agent as a systemd service, as root:
#
#   sudo scripts/install.sh [--binary PATH] [--config FILE] [--no-start]
#
# Puts the binary in $PREFIX/bin (default /usr/local/bin) and the unit in
# /etc/systemd/system, creates the system group and user hyphae, creates
# the state dir /var/lib/hyphae owned by hyphae, runs `hyphae init` there
# as hyphae (actor key, hyphae.yaml, API token; --config FILE becomes
# hyphae.yaml instead of the commented default), prints the peer ID and,
# where systemd runs, enables and (re)starts the service. Running it again
# is safe: the binary and the unit are replaced (an upgrade), the key and
# the config are kept, the same peer ID is printed.
#
# DESTDIR=/some/dir stages the files under that directory only (for
# packaging or a look): no user, no init, no systemctl.
#
# --binary defaults to ./hyphae, then dist/hyphae-<os>-<arch>
# (scripts/release), then the hyphae on PATH.
set -eu

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
STATE=/var/lib/hyphae
UNIT_DIR=/etc/systemd/system
here=$(cd "$(dirname "$0")/.." && pwd)

binary= config= start=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --config) config=${2:?--config needs a file}; shift 2 ;;
    --no-start) start=no; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "install: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }

find_binary() {
  [ -n "$binary" ] && { echo "$binary"; return; }
  arch=$(uname -m)
  case "$arch" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; armv7l) arch=armv7 ;; esac
  for b in ./hyphae "$here/dist/hyphae-linux-$arch"; do
    [ -f "$b" ] && { echo "$b"; return; }
  done
  command -v hyphae || true
}

bin=$(find_binary)
[ -n "$bin" ] && [ -f "$bin" ] || die "no hyphae binary: give --binary PATH (scripts/release builds dist/, or go build -o hyphae ./cmd/hyphae)"
for f in configs/hyphae.service scripts/account.sh; do
  [ -f "$here/$f" ] || die "no $here/$f: run this script from a Hyphae checkout or release"
done
if [ -z "$DESTDIR" ] && [ "$(id -u)" != 0 ]; then
  die "run as root (sudo $0 $*): it creates a system user and installs a service; DESTDIR=dir stages the files only"
fi

# The binary and the unit: replaced on every run (install unlinks first, so
# a running agent keeps its old binary until it restarts).
install -d "$DESTDIR$PREFIX/bin" "$DESTDIR$UNIT_DIR"
install -m 0755 "$bin" "$DESTDIR$PREFIX/bin/hyphae"
sed "s#/usr/local/bin/hyphae#$PREFIX/bin/hyphae#g" "$here/configs/hyphae.service" >"$DESTDIR$UNIT_DIR/hyphae.service"
chmod 0644 "$DESTDIR$UNIT_DIR/hyphae.service"
say "installed $DESTDIR$PREFIX/bin/hyphae ($("$DESTDIR$PREFIX/bin/hyphae" version 2>/dev/null || echo "not runnable on this machine"))"
say "installed $DESTDIR$UNIT_DIR/hyphae.service"

if [ -n "$DESTDIR" ]; then
  install -d -m 0750 "$DESTDIR$STATE"
  [ -z "$config" ] || install -m 0600 "$config" "$DESTDIR$STATE/hyphae.yaml"
  say "staged under $DESTDIR; on the target: create user hyphae, then hyphae init --data-dir $STATE as hyphae"
  exit 0
fi

# The state dir exists before the first start so that init can run now;
# systemd's StateDirectory= then finds it in place.
. "$here/scripts/account.sh"
hyphae_account
if [ -n "$config" ] && [ ! -e "$STATE/hyphae.yaml" ]; then
  install -m 0600 -o hyphae -g hyphae "$config" "$STATE/hyphae.yaml"
  say "installed $STATE/hyphae.yaml from $config"
fi
if [ -e "$STATE/actor.key" ]; then
  say "$STATE is initialised already: key and config kept"
else
  as_hyphae "$PREFIX/bin/hyphae" init --data-dir "$STATE"
fi

command -v redis-server >/dev/null ||
  say "warning: no redis-server on PATH: the agent will keep its state in memory only (apt-get install redis-server)"

peer=$(hyphae_peer "$PREFIX/bin/hyphae")
[ -n "$peer" ] || die "hyphae id --data-dir $STATE printed no peer ID"

if [ "$start" = yes ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
  systemctl daemon-reload
  systemctl enable hyphae.service
  systemctl restart hyphae.service
  say "hyphae.service enabled and (re)started: systemctl status hyphae; journalctl -u hyphae"
else
  say "not started (no systemd here, or --no-start): systemctl enable --now hyphae, or runuser -u hyphae -- $PREFIX/bin/hyphae run --data-dir $STATE"
fi
say "peer ID $peer"
