#!/bin/sh
# Installs the Debian packages the build and the tests need, once: it asks dpkg
# first, so a machine that has them pays nothing. Runs as root or through sudo.
set -eu
pkgs="gcc libc6-dev patch pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev \
libxinerama-dev libxi-dev libxxf86vm-dev libasound2-dev"
# --window: what `make test` needs besides the build (postgresql: the fleet tests start
# their own private cluster with its binaries; nothing uses the cluster the package sets up;
# pgbouncer: the tests of kiosks behind a pooler start their own, as they start PostgreSQL;
# sox measures what the game plays in the sound tests; fuse3 for the power-cut tests;
# xinit and x11-utils run the terminal's session in the escape test; systemd and
# desktop-file-utils check deploy/ in scripts/verify-deploy.sh).
[ "${1:-}" = "--window" ] && pkgs="$pkgs xvfb xauth xdotool imagemagick x11-apps x11-utils xinit strace postgresql pgbouncer sox fuse3 swtpm \
systemd desktop-file-utils"
# --demo: make fleet-demo (a private PostgreSQL, windows placed by xdotool, a terminal).
[ "${1:-}" = "--demo" ] && pkgs="$pkgs postgresql xdotool xterm procps"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing:$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
