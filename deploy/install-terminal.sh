#!/bin/sh
# Installs a Star Fortune public terminal on Debian 12, as root: a bare X
# server and xinit (no window manager, no desktop), the account starfortune
# (no password, no login shell, no home), the program, the session, the
# system service on tty7 and its settings. It starts nothing: the terminal
# needs its key first (printed at the end). See docs/terminal.md.
#
#   deploy/install-terminal.sh [--no-console-login] [--root DIR] STARFORTUNE
#
# STARFORTUNE is the program, as `make build` makes it (bin/starfortune).
# --no-console-login also removes the text logins of the other VTs (getty),
# for a terminal administered over the network only.
# --root DIR installs the files under DIR and nothing else (no packages, no
# account, no systemctl): scripts/verify-deploy.sh checks the result.
set -eu
here=$(dirname "$(readlink -f "$0")")
root= noconsole=
while [ $# -gt 1 ]; do
	case $1 in
	--root) root=$2; shift 2 ;;
	--no-console-login) noconsole=1; shift ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: $0 [--no-console-login] [--root DIR] path/to/starfortune" >&2; exit 2; }
bin=$1
[ -x "$bin" ] || { echo "$0: $bin: not an executable program" >&2; exit 2; }
live() { [ -z "$root" ]; }
if live; then
	[ "$(id -u)" -eq 0 ] || { echo "$0: run as root" >&2; exit 1; }
	# A bare X server with the kernel modesetting driver and libinput, no
	# window manager and no display manager; logind's PAM module; Mesa and
	# ALSA for the game.
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		xserver-xorg-core xserver-xorg-input-libinput xinit xauth \
		libpam-systemd dbus libgl1-mesa-dri libasound2
	getent passwd starfortune >/dev/null ||
		useradd --system --user-group --home-dir /nonexistent --no-create-home \
			--shell /usr/sbin/nologin --comment "Star Fortune terminal" starfortune
	# The TPM's resource manager belongs to group tss (Debian's tpm-udev).
	if [ -c /dev/tpmrm0 ] && getent group tss >/dev/null; then usermod -aG tss starfortune; fi
fi

install -Dm755 "$bin" "$root/usr/local/bin/starfortune"
install -Dm755 "$here/starfortune-session" "$root/usr/local/lib/starfortune/starfortune-session"
install -Dm644 "$here/starfortune-terminal.service" "$root/etc/systemd/system/starfortune-terminal.service"
install -Dm644 "$here/starfortune-terminal.pam" "$root/etc/pam.d/starfortune-terminal"
install -Dm644 "$here/starfortune-xorg.conf" "$root/etc/X11/xorg.conf.d/50-starfortune-terminal.conf"
if [ -f "$here/../docs/terminal.md" ]; then
	install -Dm644 "$here/../docs/terminal.md" "$root/usr/local/share/doc/starfortune/terminal.md"
fi

# The settings: the example, its data directory the service's. Readable by
# the account, never writable by it, and holding no secret: a fleet kiosk's
# connection string (with its password) goes to /etc/starfortune/central.url,
# mode 600, handed over as a credential (docs/terminal.md); the program
# refuses a settings file with a password that others may read. An existing
# file is kept.
conf=$root/etc/starfortune/starfortune.toml
if [ ! -e "$conf" ]; then
	install -d -m 755 "$root/etc/starfortune"
	# A machine with a TPM anchors the data on its counter (tpm).
	tpm=""
	[ -c "$root/dev/tpmrm0" ] && tpm=/dev/tpmrm0
	sed -e 's,^data_dir = .*,data_dir = "/var/lib/starfortune",' -e "s,^tpm = .*,tpm = \"$tpm\"," "$here/starfortune.toml" >"$conf"
	chmod 640 "$conf"
	if live; then chgrp starfortune "$conf"; fi
fi
# The data directory, the account's alone (the service makes it as well).
install -d -m 700 "$root/var/lib/starfortune"
if live; then chown starfortune:starfortune "$root/var/lib/starfortune"; fi

if live; then
	# Debian's optional suid wrapper (xserver-xorg-legacy) can never get
	# root under the service's NoNewPrivileges=: tell it not to try.
	if [ -e /usr/lib/xorg/Xorg.wrap ]; then
		printf 'allowed_users=console\nneeds_root_rights=no\n' >/etc/X11/Xwrapper.config
	fi
	if [ -n "$noconsole" ]; then
		install -d /etc/systemd/logind.conf.d
		printf '[Login]\nNAutoVTs=0\nReserveVT=0\n' >/etc/systemd/logind.conf.d/starfortune-terminal.conf
		systemctl mask getty@tty1.service
	fi
	systemctl daemon-reload
	systemctl enable starfortune-terminal.service
	systemctl set-default graphical.target
	cat <<EOF

Installed. Before the first start, as root:
  runuser -u starfortune -- starfortune --config /etc/starfortune/starfortune.toml key init
  runuser -u starfortune -- starfortune --config /etc/starfortune/starfortune.toml operator set-pin
then edit /etc/starfortune/starfortune.toml (kiosk_id at least), and:
  systemctl start starfortune-terminal
The terminal boots into the game from now on (docs/terminal.md).
EOF
fi
