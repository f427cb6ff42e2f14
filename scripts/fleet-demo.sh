#!/bin/bash
# make fleet-demo: a fleet on this desktop. A private PostgreSQL in a
# directory of its own (Debian's binaries, as the tests start theirs), a
# central with one emission per stake, two kiosks k1 and k2 registered, their
# two windows side by side selling from the same blocks, and a terminal
# window watching the fleet (`central kiosks`, `central blocks`). One player
# account is opened at the central, with a weekly stake limit of 5,00 € over
# the whole fleet and 20,00 € deposited at each kiosk: log in with its card
# and PIN at one window, play, then at the other, which stops the player at
# the limit. Ctrl+C, or closing a kiosk window or the terminal, stops
# everything it started and removes the directory (FLEET_DEMO_KEEP=1 keeps
# it).
#
#   scripts/fleet-demo.sh BIN
set -eu
bin=$(realpath "$1")
pgbin=/usr/lib/postgresql/15/bin
pin=${FLEET_DEMO_PIN:-482915}
cardpin=${FLEET_DEMO_CARD_PIN:-2580}
say() { echo "fleet-demo: $*" >&2; }

[ -n "${DISPLAY:-}" ] || { say "no display (DISPLAY is not set): the demo opens windows"; exit 1; }
[ -x "$pgbin/initdb" ] || { say "PostgreSQL 15 is not installed ($pgbin; scripts/deps.sh --demo)"; exit 1; }

# In /tmp: the server's user must reach its directory, and a socket path
# must stay under 108 bytes.
dir=$(mktemp -d /tmp/starfortune-fleet-demo.XXXXXX)
chmod 755 "$dir"
pg=$dir/pg
mkdir "$pg"
asuser=""
if [ "$(id -u)" -eq 0 ]; then # PostgreSQL refuses to run as root
	asuser="runuser -u postgres --"
	chown postgres: "$pg"
fi
pids=""
stop() {
	trap - EXIT INT TERM
	say "stopping"
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	(cd / && $asuser "$pgbin/pg_ctl" -D "$pg/data" -m fast -w stop >/dev/null 2>&1) || true
	if [ -n "${FLEET_DEMO_KEEP:-}" ]; then
		say "kept $dir"
	else
		rm -rf "$dir"
	fi
}
trap stop EXIT
trap 'exit 130' INT TERM

say "starting PostgreSQL in $pg"
(cd / && $asuser "$pgbin/initdb" -D "$pg/data" -A trust -U postgres -E UTF8 --locale=C >"$dir/initdb.log" 2>&1) ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
# The superuser is trusted on the socket; the kiosks' roles give their
# scram-sha-256 password, as in production.
printf 'local all postgres trust\nlocal all all scram-sha-256\n' | $asuser tee "$pg/data/pg_hba.conf" >/dev/null
(cd / && $asuser "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w \
	-o "-k $pg -p 5432 -c listen_addresses=''" start >/dev/null) || { cat "$pg/server.log" >&2; exit 1; }
(cd / && $asuser "$pgbin/createdb" -h "$pg" -p 5432 -U postgres starfortune)
db="host=$pg port=5432 dbname=starfortune user=postgres"
central() { "$bin" central --db "$db" "$@"; }

say "drawing the emission (one block per stake, about 2 s a block)"
central init >/dev/null
for stake in 0.5 1 2; do
	central emission create --stake "$stake" --blocks 1 --pack-size 500 >/dev/null
done

w=$(xdotool getdisplaygeometry | cut -d' ' -f1)
h=$(xdotool getdisplaygeometry | cut -d' ' -f2)
top=$((h * 2 / 3)) # the kiosks above, the terminal below
for k in k1 k2; do
	url=$(central kiosk add "$k" --json | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
	mkdir -p "$dir/$k"
	# Windowed (no --fullscreen): the demo's windows sit side by side.
	install -m 600 /dev/null "$dir/$k.toml" # it holds the kiosk's password
	printf 'kiosk_id = "%s"\n[central]\nurl = "%s"\n' "$k" "$url" >"$dir/$k.toml"
	printf '%s\n%s\n' "$pin" "$pin" | "$bin" --config "$dir/$k.toml" --data "$dir/$k" operator set-pin >/dev/null
done

# A player of the fleet: its account at the central, 20,00 € at each kiosk.
card=$(printf '%s\n' "$cardpin" | central players open --holder "Marie Curie" --born 1967-11-07 --id-type CNI \
	--id-number DEMO0001 --deposit-week 100 --stake-week 5 --pin-stdin --json | sed -n 's/.*"card":"\([0-9]*\)".*/\1/p')
[ -n "$card" ] || { say "could not open the player's account"; exit 1; }
for k in k1 k2; do
	"$bin" --config "$dir/$k.toml" --data "$dir/$k" wallet credit --amount 20 --card "$card" --pin "$cardpin" >/dev/null
done

# place PID X W H: the window of PID at X,0, W by H. The toolkit sizes its
# window again while it starts: place until the size holds for a second.
place() {
	win=$(xdotool search --sync --all --onlyvisible --pid "$1" --name 'Star Fortune' | head -1)
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		xdotool windowsize "$win" "$3" "$4" windowmove "$win" "$2" 0
		sleep 1
		xdotool getwindowgeometry "$win" | grep -q "Geometry: $3x$4" && return
	done
	say "could not place the window of $1"
}

x=0
for k in k1 k2; do
	"$bin" --config "$dir/$k.toml" --data "$dir/$k" 2>>"$dir/$k.stderr" &
	pids="$pids $!"
done
for pid in $pids; do
	place "$pid" "$x" $((w / 2)) "$top"
	x=$((w / 2))
done

watch="while :; do clear; date '+%H:%M:%S  the fleet, as the central sees it (Ctrl+C stops the demo)'; \
'$bin' central --db '$db' kiosks; echo; '$bin' central --db '$db' blocks | cut -c1-150; sleep 2; done"
xterm -T "Star Fortune - fleet" -fa Monospace -fs 11 -bg '#0b0e2a' -fg '#e8e8f4' \
	-geometry "220x$(((h - top) / 19))+0+$top" -e sh -c "$watch" &
pids="$pids $!"

say "running: two kiosks k1 and k2 (operator PIN $pin: Ctrl+Shift+O opens the panel, its Flotte tab shows the fleet)"
say "player: card $card, PIN $cardpin, 20,00 € at each kiosk, a weekly stake limit of 5,00 € over the fleet"
say "central: $db"
say "Ctrl+C or closing a window stops the demo"
while :; do
	for p in $pids; do
		kill -0 "$p" 2>/dev/null || exit 0
	done
	sleep 1
done
