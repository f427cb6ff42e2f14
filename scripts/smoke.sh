#!/bin/sh
# Smoke test of the real window: the binary built with Fyne's OpenGL driver
# runs under Xvfb, a unit is played with the keyboard (Enter = JOUER, 1/2 =
# pucks, Space = GO), the screen is captured, the window is stopped with
# SIGTERM, and the command line must then find the unit, fully revealed, in
# the history, with a clean audit.
#
# The window repaints only what changed from one frame to the next (see
# third_party/README.md): after the unit, the screen must equal the same
# state painted whole, which a resize forces.
set -eu
BIN=$(realpath "${1:-bin/starfortune}")
if [ -z "${SMOKE_UNDER_XVFB:-}" ]; then
	SMOKE_UNDER_XVFB=1 exec xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp -noreset" "$0" "$BIN"
fi
tmp=$(mktemp -d)
shot=${SMOKE_SHOT:-bin/smoke.png}
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "smoke: FAIL: $*" >&2; [ -f "$tmp/out" ] && tail -20 "$tmp/out" >&2; exit 1; }

"$BIN" --data "$tmp/data" >"$tmp/out" 2>&1 &
pid=$!
wid=
for _ in $(seq 1 120); do
	wid=$(xdotool search --name '^Star Fortune$' 2>/dev/null | head -1) && [ -n "$wid" ] && break
	kill -0 "$pid" 2>/dev/null || fail "the program exited before opening its window"
	sleep 0.5
done
[ -n "$wid" ] || fail "no window titled 'Star Fortune' after 60 s"
key() { xdotool key --window "$wid" "$1"; sleep "$2"; }
# The window maps at once; the game opens behind it (the key's derivation,
# the store; a new directory's blocks are drawn after, the selected stake's
# first, and JOUER waits for its block): keys before the game is open are
# lost.
for _ in $(seq 1 120); do
	grep -q '"demo wallet opened"' "$tmp/data/logs/starfortune.log" 2>/dev/null && break
	sleep 0.5
done
grep -q '"demo wallet opened"' "$tmp/data/logs/starfortune.log" 2>/dev/null || fail "the game did not open within 60 s"
sleep 2
key Return 2      # JOUER: the unit is sold, three pucks appear
key 1 5           # first puck falls
key space 3       # GO, if it landed in a BONUS box (ignored otherwise)
key 2 5           # second puck
key space 3
import -window root "$tmp/shot.png" && cp "$tmp/shot.png" "$shot" || fail "screenshot"
size=$(xdotool getwindowgeometry "$wid" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
xdotool windowsize "$wid" $(echo "$size" | awk '{ print $1 + 1, $2 }')
sleep 1
xdotool windowsize "$wid" $size
sleep 1.5
import -window root "$tmp/whole.png" || fail "screenshot"
differ=$(compare -metric AE "$tmp/shot.png" "$tmp/whole.png" "$tmp/diff.png" 2>&1 || true)
[ "$differ" = 0 ] || { cp "$tmp/whole.png" bin/smoke-whole.png; cp "$tmp/diff.png" bin/smoke-diff.png; fail "the frames painted in part differ from the same state painted whole in $differ pixels (bin/smoke.png, bin/smoke-whole.png, bin/smoke-diff.png)"; }
kill -TERM "$pid"
for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
kill -0 "$pid" 2>/dev/null && fail "the window did not stop on SIGTERM"
wait "$pid" || fail "the program exited with status $?"
pid=
last=$("$BIN" --data "$tmp/data" history --last 1 --json) || fail "history"
echo "$last" | grep -q '"ticket"' || fail "no unit in the history after playing: $last"
echo "$last" | grep -q '"revealed":true' || fail "the unit was not played to its end with the keyboard: $last"
"$BIN" --data "$tmp/data" audit >/dev/null || fail "audit after the smoke test"
echo "smoke: OK, played $(echo "$last" | sed 's/.*"ticket":"\([^"]*\)".*/\1/'), screenshot $shot"
