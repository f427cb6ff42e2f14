#!/bin/sh
# Checks the kiosk deployment files in deploy/ without installing them:
#  - the systemd user unit with `systemd-analyze --user verify` (any warning
#    fails), in a throw-away HOME where %h/.local/bin/starfortune exists,
#    plus a deliberately broken copy that must be refused (proves the check
#    bites in this environment);
#  - the XDG autostart entry with desktop-file-validate;
#  - the example configuration with the program's own loader (a Go test).
set -eu
cd "$(dirname "$0")/.."
unit=deploy/starfortune-kiosk.service
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "verify-deploy: FAIL: $*" >&2; exit 1; }

command -v systemd-analyze >/dev/null || fail "systemd-analyze missing (apt-get install systemd)"
mkdir -p "$tmp/home/.local/bin" "$tmp/run"
chmod 700 "$tmp/run"
printf '#!/bin/sh\n' >"$tmp/home/.local/bin/starfortune"
chmod +x "$tmp/home/.local/bin/starfortune"
analyze() { HOME=$tmp/home XDG_RUNTIME_DIR=$tmp/run systemd-analyze --user verify --man=no "$1" 2>&1; }

out=$(analyze "$unit") || fail "systemd-analyze --user verify $unit:
$out"
[ -z "$out" ] || fail "systemd-analyze --user verify $unit warns:
$out"
for want in '^ExecStart=%h/\.local/bin/starfortune --fullscreen' '^Restart=on-failure' '^RestartSec=' \
	'^Environment=DISPLAY=:0' '^WantedBy=graphical-session\.target'; do
	grep -q "$want" "$unit" || fail "$unit has no line matching $want"
done
echo "verify-deploy: $unit: systemd-analyze --user verify: no warnings"

sed -e 's/^Restart=on-failure/Restart=sometimes/' -e 's,^ExecStart=%h/,ExecStart=%h/missing/,' "$unit" >"$tmp/broken.service"
out=$(analyze "$tmp/broken.service") && [ -z "$out" ] && fail "systemd-analyze did not notice a broken unit"
echo "verify-deploy: a broken copy is refused ($(echo "$out" | wc -l) complaints)"

desktop=deploy/starfortune-kiosk.desktop
if command -v desktop-file-validate >/dev/null; then
	out=$(desktop-file-validate "$desktop" 2>&1) && [ -z "$out" ] || fail "desktop-file-validate $desktop:
$out"
	echo "verify-deploy: $desktop: desktop-file-validate: no warnings"
else
	echo "verify-deploy: desktop-file-validate missing (apt-get install desktop-file-utils): $desktop not checked"
fi

go test -tags ci -count=1 -run '^TestLoadExampleFile$' ./config/ >"$tmp/go" 2>&1 || { cat "$tmp/go" >&2; fail "deploy/starfortune.toml"; }
echo "verify-deploy: deploy/starfortune.toml loads with config.Load"
echo "verify-deploy: OK"
