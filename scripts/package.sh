#!/bin/sh
# Builds the Linux bundle with the fyne CLI, then does what a user does with
# it: unpacks it, runs its Makefile's user-install into a throw-away home,
# and launches the installed binary under Xvfb. The screen is captured to
# docs/packaged-window.png (PACKAGE_SHOT to change).
#
# Output: bin/package/Star Fortune.tar.xz. The first run rebuilds Fyne's GL
# driver (fyne package adds hardening cgo flags): about 4 minutes.
set -eu
cd "$(dirname "$0")/.."
FYNE_TOOLS=v1.7.4

if [ "${1:-}" = "--launch" ]; then # under xvfb-run: start EXE, capture SHOT
	exe=$2 shot=$3 data=$4
	"$exe" --data "$data" >"$data.out" 2>&1 &
	pid=$!
	wid=
	for _ in $(seq 1 120); do
		wid=$(xdotool search --name '^Star Fortune$' 2>/dev/null | head -1) && [ -n "$wid" ] && break
		kill -0 "$pid" 2>/dev/null || { echo "package: the installed binary exited:" >&2; tail "$data.out" >&2; exit 1; }
		sleep 0.5
	done
	[ -n "$wid" ] || { kill "$pid"; echo "package: no 'Star Fortune' window after 60 s" >&2; exit 1; }
	sleep 3 # let the first frames settle
	mkdir -p "$(dirname "$shot")"
	import -window "$wid" "$shot"
	kill -TERM "$pid"
	wait "$pid" || { echo "package: the installed binary exited with status $? on SIGTERM" >&2; exit 1; }
	exit 0
fi

out=bin/package
shot=${PACKAGE_SHOT:-docs/packaged-window.png}
GOBIN=$(go env GOBIN)
[ -n "$GOBIN" ] || GOBIN=$(go env GOPATH)/bin
fyne=$GOBIN/fyne
if ! "$fyne" version 2>/dev/null | grep -q "cli version: $FYNE_TOOLS"; then
	echo "package: installing fyne.io/tools/cmd/fyne@$FYNE_TOOLS"
	go install "fyne.io/tools/cmd/fyne@$FYNE_TOOLS"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package: FAIL: $*" >&2; exit 1; }

# fyne package writes a metadata file and the binary into the source
# directory while it builds: build from a snapshot of the working tree so
# the tree itself is never touched.
mkdir -p "$tmp/src"
git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	xargs -0 cp --parents -t "$tmp/src" ||
	fail "cannot snapshot the source tree"
cp -r .git "$tmp/src/" || fail "cannot copy .git" # so that the build stamps the commit `version` prints
rm -rf "$out" && mkdir -p "$out"
echo "package: fyne package -os linux (the first run takes ~4 min)"
# -buildvcs=auto overrides a -buildvcs=false in the Go environment, as the
# Makefile's build does.
(cd "$out" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=auto" "$fyne" package -os linux --tags "${TAGS:-no_emoji}" --src "$tmp/src") || fail "fyne package"
tarball=$(ls "$out"/*.tar.xz 2>/dev/null | head -1)
[ -n "$tarball" ] || fail "no .tar.xz in $out"
echo "package: built $tarball ($(du -h "$tarball" | cut -f1))"

# Install it as a user would: unpack, make user-install (HOME is temporary).
mkdir -p "$tmp/unpack" "$tmp/home"
tar -xJf "$tarball" -C "$tmp/unpack"
bundle=$(dirname "$(find "$tmp/unpack" -name Makefile | head -1)")
make -s -C "$bundle" user-install HOME="$tmp/home" || fail "make user-install"
exe=$tmp/home/.local/bin/starfortune
[ -x "$exe" ] || fail "user-install did not install $exe"
[ -f "$tmp/home/.local/share/icons/fr.starfortune.kiosk.png" ] || fail "user-install did not install the icon"
desktop=$tmp/home/.local/share/applications/fr.starfortune.kiosk.desktop
grep -qx "Exec=$exe" "$desktop" || fail "desktop entry does not run $exe: $(grep Exec= "$desktop")"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$desktop" || fail "desktop entry"; fi
"$exe" version || fail "installed binary: version"
echo "package: installed into $tmp/home/.local; launching it under Xvfb"

xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp -noreset" "$0" --launch "$exe" "$shot" "$tmp/data" ||
	fail "launching the installed binary"
echo "package: OK, $tarball installed and launched, screenshot $shot"
