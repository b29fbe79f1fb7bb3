# The system account of a Hyphae agent, shared by scripts/install.sh
# (which sources it) and the .deb/.rpm postinst (scripts/pkg puts it at
# the top of the script). It defines functions and runs nothing; the
# caller sets STATE (the state dir) and defines say.

# hyphae_account: the system group and user hyphae (no login shell, home
# STATE, not created), then STATE owned by them with mode 0750, so that
# `hyphae init` can run there as hyphae before systemd's StateDirectory=
# would make it. Existing ones are kept.
hyphae_account() {
  getent group hyphae >/dev/null || { groupadd --system hyphae; say "created group hyphae"; }
  if ! getent passwd hyphae >/dev/null; then
    useradd --system --gid hyphae --home-dir "$STATE" --no-create-home \
      --shell "$(command -v nologin || echo /usr/sbin/nologin)" --comment "Hyphae agent" hyphae
    say "created user hyphae"
  fi
  install -d -m 0750 -o hyphae -g hyphae "$STATE"
}

# as_hyphae CMD...: run as the hyphae user, from / (its home may not exist).
as_hyphae() {
  if command -v runuser >/dev/null; then
    (cd / && runuser -u hyphae -- "$@")
  elif command -v setpriv >/dev/null; then
    (cd / && setpriv --reuid=hyphae --regid=hyphae --init-groups -- "$@")
  else
    (cd / && su -s /bin/sh hyphae -c '"$0" "$@"' "$@")
  fi
}

# hyphae_peer BIN: the peer ID of STATE's actor key, as hyphae.
hyphae_peer() {
  as_hyphae "$1" id --json --data-dir "$STATE" | sed -n 's/.*"peer_id": *"\([^"]*\)".*/\1/p'
}
