#!/bin/sh
# Checks the deployment files in deploy/ without installing them on this
# machine (`make test` runs it):
#  - the public terminal: deploy/install-terminal.sh --root installs its
#    files into a throw-away root, where `systemd-analyze --root verify`
#    checks the system unit (any warning fails; a deliberately broken copy
#    must be refused, which proves the check bites here);
#    `systemd-analyze security --offline` rates its hardening, and an
#    exposure of 5.0 or more fails; the session script parses, every module
#    of its PAM stack exists, its Xorg settings hold the options that close
#    the X server's own ways out;
#  - the demo install: the systemd user unit with `systemd-analyze --user
#    verify` in a throw-away HOME where %h/.local/bin/starfortune exists,
#    likewise with a broken copy; the XDG autostart entry with
#    desktop-file-validate; both say they are the demo's;
#  - the example configuration with the program's own loader (a Go test).
# Under CI a missing tool is a failure, elsewhere a check skipped.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "verify-deploy: FAIL: $*" >&2; exit 1; }
say() { echo "verify-deploy: $*"; }
need() { # need TOOL PACKAGE: 0 when TOOL is there; fails under CI, else 1
	command -v "$1" >/dev/null && return 0
	[ -n "${CI:-}" ] && fail "$1 missing (apt-get install $2; scripts/deps.sh --window installs it)"
	say "$1 missing (apt-get install $2): not checked"
	return 1
}
need systemd-analyze systemd || fail "systemd-analyze missing (apt-get install systemd)"

# --- the public terminal -------------------------------------------------
unit=deploy/starfortune-terminal.service
root=$tmp/root
printf '#!/bin/sh\n' >"$tmp/starfortune"
chmod +x "$tmp/starfortune"
deploy/install-terminal.sh --root "$root" "$tmp/starfortune" || fail "deploy/install-terminal.sh --root"
for f in usr/local/bin/starfortune usr/local/lib/starfortune/starfortune-session etc/systemd/system/starfortune-terminal.service \
	etc/pam.d/starfortune-terminal etc/X11/xorg.conf.d/50-starfortune-terminal.conf etc/starfortune/starfortune.toml; do
	[ -e "$root/$f" ] || fail "install-terminal.sh did not install /$f"
done
grep -q '^data_dir = "/var/lib/starfortune"$' "$root/etc/starfortune/starfortune.toml" ||
	fail "the installed settings file does not name the service's data directory"
# The unit's dependencies (sysinit.target...) come from this machine's systemd.
mkdir -p "$root/usr/lib/systemd"
cp -R /usr/lib/systemd/system "$root/usr/lib/systemd/"
verify() { systemd-analyze verify --man=no --root="$root" "$1" 2>&1; }
out=$(verify starfortune-terminal.service) || fail "systemd-analyze verify $unit:
$out"
[ -z "$out" ] || fail "systemd-analyze verify $unit warns:
$out"
for want in '^ExecStart=/usr/local/lib/starfortune/starfortune-session$' '^User=starfortune$' '^PAMName=starfortune-terminal$' \
	'^TTYPath=/dev/tty7$' '^StandardInput=tty' '^Restart=always$' '^RestartSec=' '^StartLimitIntervalSec=0$' \
	'^StateDirectory=starfortune$' '^ProtectSystem=strict$' '^NoNewPrivileges=yes$' '^CapabilityBoundingSet=$' \
	'^DevicePolicy=closed$' '^WantedBy=graphical\.target$'; do
	grep -q "$want" "$unit" || fail "$unit has no line matching $want"
done
say "$unit: systemd-analyze verify (system, installed by install-terminal.sh --root): no warnings"

sed -e 's/^Restart=always/Restart=sometimes/' -e 's,^ExecStart=/usr/local/lib/,ExecStart=/usr/local/missing/,' "$unit" \
	>"$root/etc/systemd/system/broken-terminal.service"
out=$(verify broken-terminal.service) && [ -z "$out" ] && fail "systemd-analyze did not notice a broken system unit"
say "a broken copy is refused ($(echo "$out" | wc -l) complaints)"
rm "$root/etc/systemd/system/broken-terminal.service"

out=$(systemd-analyze security --offline=yes --root="$root" starfortune-terminal.service 2>&1) || true
score=$(echo "$out" | sed -n 's/.*Overall exposure level for starfortune-terminal\.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "systemd-analyze security printed no exposure level:
$out"
awk -v s="$score" 'BEGIN { exit !(s < 5.0) }' || fail "$unit: exposure $score, want below 5.0:
$(echo "$out" | grep '✗')"
# The same limit through systemd-analyze's own threshold (tenths: 49 is 4.9).
systemd-analyze security --offline=yes --threshold=49 --root="$root" starfortune-terminal.service >/dev/null 2>&1 ||
	fail "systemd-analyze security --threshold=49 refuses $unit"
say "$unit: systemd-analyze security --offline: exposure $score (below 5.0)"

sh -n deploy/starfortune-session || fail "deploy/starfortune-session does not parse"
pam=deploy/starfortune-terminal.pam
grep -q '^session  *required  *pam_systemd\.so' "$pam" || fail "$pam does not require pam_systemd (the logind session)"
for m in $(awk '/^[a-z]/ { print $3 }' "$pam"); do
	found=
	for d in /usr/lib/*-linux-gnu/security /lib/*-linux-gnu/security /usr/lib/security /lib/security; do
		[ -e "$d/$m" ] && found=1
	done
	[ -n "$found" ] || fail "$pam: module $m not found (apt-get install libpam-modules libpam-systemd)"
done
say "$pam: every module exists"
xorg=deploy/starfortune-xorg.conf
for opt in DontVTSwitch DontZap DontZoom BlankTime StandbyTime SuspendTime OffTime; do
	grep -Eq "^[[:space:]]*Option \"$opt\" \"(true|0)\"" "$xorg" || fail "$xorg does not set $opt"
done
say "$xorg: no VT switch, no zap, no zoom, no blanking"

# --- the demo install ------------------------------------------------------
demo=deploy/starfortune-kiosk.service
mkdir -p "$tmp/home/.local/bin" "$tmp/run"
chmod 700 "$tmp/run"
cp "$tmp/starfortune" "$tmp/home/.local/bin/starfortune"
analyze() { HOME=$tmp/home XDG_RUNTIME_DIR=$tmp/run systemd-analyze --user verify --man=no "$1" 2>&1; }

out=$(analyze "$demo") || fail "systemd-analyze --user verify $demo:
$out"
[ -z "$out" ] || fail "systemd-analyze --user verify $demo warns:
$out"
for want in '^ExecStart=%h/\.local/bin/starfortune --fullscreen' '^Restart=on-failure' '^RestartSec=' \
	'^Environment=DISPLAY=:0' '^WantedBy=graphical-session\.target' 'DEMO'; do
	grep -q "$want" "$demo" || fail "$demo has no line matching $want"
done
say "$demo: systemd-analyze --user verify: no warnings"

sed -e 's/^Restart=on-failure/Restart=sometimes/' -e 's,^ExecStart=%h/,ExecStart=%h/missing/,' "$demo" >"$tmp/broken.service"
out=$(analyze "$tmp/broken.service") && [ -z "$out" ] && fail "systemd-analyze did not notice a broken user unit"
say "a broken copy is refused ($(echo "$out" | wc -l) complaints)"

desktop=deploy/starfortune-kiosk.desktop
grep -q 'DEMO' "$desktop" || fail "$desktop does not say it is the demo install"
if need desktop-file-validate desktop-file-utils; then
	out=$(desktop-file-validate "$desktop" 2>&1) && [ -z "$out" ] || fail "desktop-file-validate $desktop:
$out"
	say "$desktop: desktop-file-validate: no warnings"
fi

go test -tags ci -count=1 -run '^TestLoadExampleFile$' ./config/ >"$tmp/go" 2>&1 || { cat "$tmp/go" >&2; fail "deploy/starfortune.toml"; }
say "deploy/starfortune.toml loads with config.Load"
say "OK"
