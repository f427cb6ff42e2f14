#!/bin/sh
# The performance report of `make bench`: one line per budget, each measured
# against its baseline in the same run, on stdout:
#
#   BENCH <name> value=<number><unit> baseline=<number><unit> ratio=<value/baseline>
#
# Progress, details and the budget verdicts go to stderr; the raw outputs to
# bin/bench/. Exits 1 if a line could not be measured.
#
#   name                    value                               baseline
#   sale_p50                storage BenchmarkSale p50           its raw 4 KiB write+fsync p50, one before each sale; median of 3 rounds
#   sale_encrypted_p50      storage BenchmarkSaleEncryption p50 the same benchmark's sale on a store in clear (plain-p50-µs),
#                           (a sale on the encrypted store)     alternating with it on the same disk; median of 3 rounds
#   sale_protected_p50      storage BenchmarkSaleProtection p50 the demo wallet's sale, no protection (plain-p50-µs),
#                           (an account's sale, SPEC §10)       alternating with it on the same store; median of 3 rounds
#   block_generate_persist  storage BenchmarkBlockPersist       benchbase BenchmarkRawWriteBlock (same 2.55 MB + fsync)
#   block_audit             storage BenchmarkBlockAudit         benchbase BenchmarkAuditFloor (file read + SHA-256 + regeneration)
#   hash_floor              storage BenchmarkHashFloor: the     storage BenchmarkHashFloorOneCore: the same
#                           SHA-256 calls of one block's Merkle calls on one core
#                           tree, nothing else, on all cores
#   block_generate_persist_vs_floor  storage BenchmarkBlockPersist   storage BenchmarkHashFloor
#   block_audit_vs_floor    storage BenchmarkBlockAudit         storage BenchmarkHashFloor
#                           (the four block benchmarks: medians of 3 rounds, run one after another in each)
#   batch_sales_per_s       storage BenchmarkBatchSales         the same sales one per durable transaction (1 / BenchmarkSale);
#                                                               median of 3 rounds
#   last_unit_lookup_1M     storage BenchmarkLastUnit (1M)      benchbase BenchmarkBadgerGet1Key
#   board_frame_render      framebench -board (UI thread CPU     framebench: a blank animated window of the same
#                           per frame, Mesa on that thread)      size, same measure; 3 alternating runs, medians
#   board_frame_render_portrait  the same at 1080x1920 (the      the blank window at 1080x1920
#                           board across a portrait kiosk)
#   startup_to_first_frame  benchwin on the game (median of 5)  benchwin on scripts/hello, runs interleaved
#   first_frame_fresh       the same on an empty data directory the same hello runs
#   rss_playing_mb          benchwin -play on the game          benchwin on scripts/hello
#   pss_peak_after_unit     the highest PSS in the 5 s after the the same hello run, the same 5 s
#                           unit's reveal ends
#   pss_playing_mb          the same, proportional set size     the same (PSS: shared pages divided among
#                           (/proc/PID/smaps_rollup)            the processes mapping them)
#   cpu_while_falling       benchwin -fall: % of one core while  benchwin -fall on scripts/hello: the same
#                           a puck falls, sound on; median of 3  keys and wait, a window idle
#
# The hello window is built with the game's tags (no_emoji): a Fyne window
# as the game builds it. The game plays its sounds into a sound card made by
# scripts/soundcard (ALSA's file device drained at a real card's pace): the
# game is measured with its sound on.
#   pack_claim_p50          central BenchmarkPackClaim p50      central BenchmarkSelect1 p50 (a SELECT 1 round trip)
#                           (claim + verify a 1 000-unit pack)
#   central_ingest_per_s    central BenchmarkIngest (20 kiosks  central BenchmarkCopyBaseline (one plain COPY of
#                           pushing 10 000 sales each at once)  the same rows into a table shaped like sales)
#   fleet_sale_p50          central BenchmarkFleetSale p50      the same benchmark's lone-kiosk sale (local-p50-µs),
#                           (a fleet kiosk's durable sale)      alternating with it on the same disk; median of 3 rounds
#   fleet_sale_leased_p50   central BenchmarkFleetSale           the same benchmark's lone kiosk's sale for an
#                           leased-p50: a fleet account's sale   account (account-p50-µs), both checking their
#                           within its lease (issue 31)          protection in the sale; median of 3 rounds
#   player_login_p50        central BenchmarkPlayerLogin p50     central BenchmarkSelect1 p50 (a SELECT 1 round trip)
#                           (card + PIN at the central, a lease
#                           reserved, the kiosk's mirror written)
#   fleet_view_5m_p99       central BenchmarkFleetView p99: the  the same benchmark's reads on the same central
#                           fleet view a kiosk's panel reads, on before it held a sale (empty-p99-ms)
#                           a central holding 5.1 million synced
#                           sales (issue 32: counters, no scans)
#   pooled_call_exec_p50    central BenchmarkPooledCall p50: a   the same benchmark's rounds of a kiosk
#                           kiosk's round through PgBouncer (a   whose client is in cache_describe mode,
#                           push of 10 sales, one of their       OpenPooled's (describe-p50-ms), alternating
#                           movements, a heartbeat; each call    with it through the same pooler
#                           proven), its client in pgx's exec
#                           mode (exec-p50-ms; issue 32)
#   pooled_call_exec_p99    the same, p99 (exec-p99-ms)          the same, p99 (describe-p99-ms)
#   fleet_block_s           seconds for 20 kiosk processes to   one lone kiosk's `play --batch 2048` of a whole
#                           sell a whole 0,50 € block through   block of its own, the same binary (the main
#                           one PostgreSQL and sync it, no      package's test binary, which doubles as the
#                           faults (TestFleetSoak, batches of   program), the same disk
#                           2 048, each kiosk on the server's
#                           socket, without the soak's proxy)
#
# The central's benchmarks start their own PostgreSQL (internal/pgtest: a
# Unix socket, fsync off for the central as for its baselines).
#
# Temporary databases go to BENCH_DIR (default: beside the game's data
# directory, $XDG_DATA_HOME or ~/.local/share), so that fsyncs hit the disk
# the kiosk writes to. BENCH_RUNS sets the number of window starts (5).
set -eu
self=$(realpath "$0")
cd "$(dirname "$self")/.."
out=bin/bench
RUNS=${BENCH_RUNS:-5}
# -noreset: without it Xvfb resets when its last client leaves, and a window
# started during that reset fails glfwInit (GLFW "NotInitialized", then a
# panic in Fyne): the game and hello windows start one after another here.
XVFB="-screen 0 1280x1920x24 -nolisten tcp -noreset" # tall enough for a portrait kiosk

if [ "${1:-}" = "--windows" ]; then # under xvfb-run: the window measurements
	game=$2 data=$3
	card=$(mktemp -d)
	$out/soundcard "$card" &
	cardpid=$!
	trap 'kill $cardpid; rm -rf "$card"' EXIT
	for i in $(seq 1 "$RUNS"); do
		echo "bench: window start $i/$RUNS" >&2
		$out/benchwin -log $out/window.log -name 'Hello Fyne' -hold 1s -- $out/hello | sed 's/^/hello start /'
		HOME=$card $out/benchwin -log $out/window.log -name 'Star Fortune' -hold 1s -- "$game" --player demo --data "$data" | sed 's/^/game start /'
		# A fresh data directory: the first frame does not wait for the
		# blocks drawn, nor the key made.
		fresh=$(mktemp -d "$data.fresh.XXXXXX")
		HOME=$card $out/benchwin -log $out/window.log -name 'Star Fortune' -hold 1s -- "$game" --player demo --data "$fresh/data" | sed 's/^/game fresh /'
		rm -rf "$fresh"
		# Its store's pages written back now, not during the next round's
		# starts: without it those starts took 305 ms against 255 (the
		# median of five, the hello window's 170 and 180).
		sync
	done
	for i in 1 2 3; do
		echo "bench: a puck falling $i/3, then the hello window idle" >&2
		# A copy each time: a fall's game is killed in the middle of its
		# unit, and the next would open on the unfinished-game dialog.
		rm -rf "$data.fall" && cp -a "$data" "$data.fall"
		HOME=$card $out/benchwin -log $out/window.log -name 'Star Fortune' -fall -- "$game" --player demo --data "$data.fall" | sed 's/^/game fall /'
		$out/benchwin -log $out/window.log -name 'Hello Fyne' -fall -- $out/hello | sed 's/^/hello fall /'
	done
	for i in 1 2 3; do
		echo "bench: frames $i/3: a blank window, then the board with falling pucks" >&2
		LP_NUM_THREADS=0 $out/framebench | sed 's/^/blank frame /'
		LP_NUM_THREADS=0 $out/framebench -board | sed 's/^/board frame /'
		LP_NUM_THREADS=0 $out/framebench -size 1080x1920 | sed 's/^/blank portrait /'
		LP_NUM_THREADS=0 $out/framebench -board -size 1080x1920 | sed 's/^/board portrait /'
	done
	echo "bench: playing a unit in the window (20 s), then the hello window as long" >&2
	HOME=$card $out/benchwin -log $out/window.log -name 'Star Fortune' -play -hold 21s -- "$game" --player demo --data "$data" | sed 's/^/game play /'
	$out/benchwin -log $out/window.log -name 'Hello Fyne' -hold 21s -- $out/hello | sed 's/^/hello play /'
	grep -q 'sound: playing on the default audio device' "$data/logs/starfortune.log" ||
		echo "bench: the game found no sound card: measured without sound" >&2
	exit 0
fi

BIN=$(realpath "${1:-bin/starfortune}")
[ -x "$BIN" ] || { echo "bench: $BIN missing: run make build" >&2; exit 1; }
mkdir -p "$out"
datahome=${XDG_DATA_HOME:-$HOME/.local/share}
case $datahome in /*) ;; *) datahome=$HOME/.local/share ;; esac
mkdir -p "${BENCH_DIR:-$datahome}"
work=$(mktemp -d "${BENCH_DIR:-$datahome}/starfortune-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"
# Every data directory of the bench is a kiosk's, encrypted at rest under a
# passphrase found in a file (a new one is sealed under it): the windows'
# starts are restarts after the unlock, with the key's derivation
# (Argon2id) in them.
echo "bench kiosk passphrase" >"$work/passphrase"
export STARFORTUNE_PASSPHRASE_FILE="$work/passphrase"
echo "bench: temporary databases in $work ($(df --output=source,fstype "$work" | tail -1 | tr -s ' '))" >&2

echo "bench: building the benchmarks" >&2
go test -c -o $out/storage.test ./storage
go test -c -o $out/benchbase.test ./scripts/benchbase
go test -c -o $out/central.test ./central
uitest=yes
go test -c -tags "ci,${TAGS:-no_emoji}" -o $out/ui.test ./ui || { uitest=; echo "bench: the ui benchmarks do not compile: board_frame_render will be missing" >&2; }
go build -tags "${TAGS:-no_emoji}" -o $out/hello ./scripts/hello # a Fyne window built as the game is
go build -o $out/benchwin ./scripts/benchwin
go build -o $out/soundcard ./scripts/soundcard
go build -tags "${TAGS:-no_emoji}" -o $out/framebench ./scripts/framebench

raw=$out/raw.txt
: >$out/window.log
: >"$raw"
bench() { # bench DIR TESTBIN REGEX BENCHTIME
	echo "bench: $3 ($2)" >&2
	(cd "$1" && "$OLDPWD/$2" -test.run '^$' -test.bench "$3" -test.benchtime "$4") 2>&1 |
		grep -v -e '^Fyne error' -e '^  Cause:' -e '^  At:' -e 'Error parsing user locale' -e 'tag is not well-formed' -e 'lang/locale.go' >>"$raw" || true
}
# The disk is shared and its speed changes from second to second: the sale
# benchmark times a raw fsync before each sale (raw-p50-µs). Three rounds,
# and three of the batch (the host's CPU is shared too): their medians.
for _ in 1 2 3; do bench storage $out/storage.test '^BenchmarkSale$' 1000x; done
for _ in 1 2 3; do bench storage $out/storage.test '^BenchmarkSaleEncryption$' 1000x; done
for _ in 1 2 3; do bench storage $out/storage.test '^BenchmarkSaleProtection$' 1000x; done
for _ in 1 2 3; do bench storage $out/storage.test '^BenchmarkBatchSales$' 100x; done
# The block benchmarks and their hashing floor take turns, three rounds:
# the CPUs are shared, and each ratio compares medians.
for _ in 1 2 3; do bench storage $out/storage.test '^(BenchmarkBlockPersist|BenchmarkBlockAudit|BenchmarkHashFloor|BenchmarkHashFloorOneCore)$' 10x; done
bench storage $out/storage.test '^BenchmarkLastUnit$' 1s
bench scripts/benchbase $out/benchbase.test '.' 1s
bench central $out/central.test '^(BenchmarkPackClaim|BenchmarkSelect1|BenchmarkPlayerLogin)$' 200x
bench central $out/central.test '^(BenchmarkIngest|BenchmarkCopyBaseline)$' 1x
for _ in 1 2 3; do bench central $out/central.test '^BenchmarkFleetSale$' 500x; done
bench central $out/central.test '^BenchmarkFleetView$' 1x
bench central $out/central.test '^BenchmarkPooledCall$' 300x
[ -n "$uitest" ] && bench ui $out/ui.test '^BenchmarkFrameUpdate$' 1s

echo "bench: 20 kiosk processes sell a whole block through one PostgreSQL (about 2 minutes), then a lone kiosk one block" >&2
go test -c -tags "ci,${TAGS:-no_emoji}" -o $out/e2e.test ./e2e/ # its kiosks are the shipped binary, built as $BIN is
STARFORTUNE_FLEET_SOAK=20 STARFORTUNE_FLEET_FAULTS=0 $out/e2e.test -test.run '^TestFleetSoak$' -test.timeout 30m 2>&1 | grep '^FLEETBLOCK' >>"$raw" || true
lone() { "$BIN" --data "$work/lone" "$@"; }
lone blocks >/dev/null 2>&1 # draws the blocks: the fleet's are drawn before its clock starts too
lone wallet credit --amount 500000 >/dev/null
t0=$(date +%s.%N)
lone play --stake 0.5 --n 850000 --batch 2048 >/dev/null || true
echo "FLEETLONE time=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')s" >>"$raw"

echo "bench: window start and memory under Xvfb" >&2
"$BIN" --data "$work/game" key init >/dev/null
"$BIN" --data "$work/game" blocks >/dev/null 2>&1 # draw the blocks first: measure a kiosk's restart, not its first day
xvfb-run -a -s "$XVFB" "$self" --windows "$BIN" "$work/game" 2>&1 >>"$raw" |
	grep -v -e 'Fyne error' -e 'Cause:' -e 'At:' >&2 || true

# median: the median of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
# metric NAME UNIT: the value printed before UNIT on the lines of benchmark
# NAME (the median when it ran more than once).
metric() {
	awk -v name="$1" -v unit="$2" '$1 ~ "^" name "(-[0-9]+)?$" { for (i = 2; i < NF; i++) if ($(i + 1) == unit) print $i }' "$raw" | median
}
# window WHO WHAT KEY: the median of KEY over the benchwin lines "WHO WHAT ...".
window() {
	grep "^$1 $2 " "$raw" | tr ' ' '\n' | sed -n "s/^$3=//p" | median
}

missing=0
# line NAME VALUE BASELINE UNIT SCALE DECIMALS: both numbers are divided by SCALE.
line() {
	if [ -z "$2" ] || [ -z "$3" ]; then
		echo "bench: $1: NOT MEASURED (value '${2}', baseline '${3}'; see $raw)" >&2
		missing=1
		return
	fi
	awk -v n="$1" -v v="$2" -v b="$3" -v u="$4" -v s="$5" -v d="$6" 'BEGIN {
		fmt = "BENCH %s value=%." d "f%s baseline=%." d "f%s ratio=%.2f\n"
		printf fmt, n, v / s, u, b / s, u, (b == 0 ? 0 : v / b)
	}' | tee -a $out/results.txt
}
: >$out/results.txt
sale_ns=$(metric BenchmarkSale ns/op)
line sale_p50 "$(metric BenchmarkSale p50-µs)" "$(metric BenchmarkSale raw-p50-µs)" ms 1000 3
line sale_encrypted_p50 "$(metric BenchmarkSaleEncryption p50-µs)" "$(metric BenchmarkSaleEncryption plain-p50-µs)" ms 1000 3
line sale_protected_p50 "$(metric BenchmarkSaleProtection p50-µs)" "$(metric BenchmarkSaleProtection plain-p50-µs)" ms 1000 3
line block_generate_persist "$(metric BenchmarkBlockPersist ns/op)" "$(metric BenchmarkRawWriteBlock ns/op)" ms 1000000 1
line block_audit "$(metric BenchmarkBlockAudit ns/op)" "$(metric BenchmarkAuditFloor ns/op)" ms 1000000 1
line hash_floor "$(metric BenchmarkHashFloor ns/op)" "$(metric BenchmarkHashFloorOneCore ns/op)" ms 1000000 1
line block_generate_persist_vs_floor "$(metric BenchmarkBlockPersist ns/op)" "$(metric BenchmarkHashFloor ns/op)" ms 1000000 1
line block_audit_vs_floor "$(metric BenchmarkBlockAudit ns/op)" "$(metric BenchmarkHashFloor ns/op)" ms 1000000 1
line batch_sales_per_s "$(metric BenchmarkBatchSales units/s)" "$([ -n "$sale_ns" ] && awk -v n="$sale_ns" 'BEGIN { print 1e9 / n }')" /s 1 0
line last_unit_lookup_1M "$(metric BenchmarkLastUnit ns/op)" "$(metric BenchmarkBadgerGet1Key ns/op)" us 1000 1
line board_frame_render "$(window board frame frame_p50_us)" "$(window blank frame frame_p50_us)" ms 1000 1
line board_frame_render_portrait "$(window board portrait frame_p50_us)" "$(window blank portrait frame_p50_us)" ms 1000 1
line startup_to_first_frame "$(window game start first_frame_ms)" "$(window hello start first_frame_ms)" ms 1 0
line first_frame_fresh "$(window game fresh first_frame_ms)" "$(window hello start first_frame_ms)" ms 1 0
line rss_playing_mb "$(window game play rss_kb)" "$(window hello play rss_kb)" MB 1024 1
line pack_claim_p50 "$(metric BenchmarkPackClaim p50-ms)" "$(metric BenchmarkSelect1 p50-ms)" ms 1 3
line central_ingest_per_s "$(metric BenchmarkIngest sales/s)" "$(metric BenchmarkCopyBaseline sales/s)" /s 1 0
line pss_playing_mb "$(window game play pss_kb)" "$(window hello play pss_kb)" MB 1024 1
line pss_peak_after_unit "$(window game play pss_peak_kb)" "$(window hello play pss_peak_kb)" MB 1024 1
line cpu_while_falling "$(window game fall cpu_fall_pct)" "$(window hello fall cpu_fall_pct)" % 1 1
line fleet_block_s "$(sed -n 's/^FLEETBLOCK .*time=\([0-9.]*\)s.*/\1/p' "$raw")" "$(sed -n 's/^FLEETLONE time=\([0-9.]*\)s.*/\1/p' "$raw")" s 1 1
line fleet_sale_p50 "$(metric BenchmarkFleetSale p50-µs)" "$(metric BenchmarkFleetSale local-p50-µs)" ms 1000 3
line fleet_sale_leased_p50 "$(metric BenchmarkFleetSale leased-p50-µs)" "$(metric BenchmarkFleetSale account-p50-µs)" ms 1000 3
line player_login_p50 "$(metric BenchmarkPlayerLogin p50-ms)" "$(metric BenchmarkSelect1 p50-ms)" ms 1 3
line fleet_view_5m_p99 "$(metric BenchmarkFleetView p99-ms)" "$(metric BenchmarkFleetView empty-p99-ms)" ms 1 2
line pooled_call_exec_p50 "$(metric BenchmarkPooledCall exec-p50-ms)" "$(metric BenchmarkPooledCall describe-p50-ms)" ms 1 2
line pooled_call_exec_p99 "$(metric BenchmarkPooledCall exec-p99-ms)" "$(metric BenchmarkPooledCall describe-p99-ms)" ms 1 2

# The budgets of issue 7, for the reader (stderr).
records=$(metric BenchmarkLastUnit records)
echo "bench: resident memory after play, anonymous + file-backed: game $(window game play rss_anon_kb) + $(window game play rss_file_kb) kB, hello $(window hello play rss_anon_kb) + $(window hello play rss_file_kb) kB; PSS of it anonymous: game $(window game play pss_anon_kb) kB, hello $(window hello play pss_anon_kb) kB; window mapped after $(window game start mapped_ms) ms (hello $(window hello start mapped_ms) ms)" >&2
echo "bench: history records behind last_unit_lookup_1M: ${records:-?}; UI tick (BenchmarkFrameUpdate): $(metric BenchmarkFrameUpdate ns/op) ns" >&2
echo "bench: board frame p95 $(window board frame frame_p95_us) us, one frame every $(window board frame interval_p50_us) us (blank window: p95 $(window blank frame frame_p95_us) us)" >&2
awk '
function verdict(ok) { return ok ? "ok" : "MISSED" }
{ split($3, v, "="); split($4, b, "="); split($5, r, "="); val = v[2] + 0; ratio = r[2] + 0 }
$2 == "sale_p50"               { print "budget sale_p50 <= 1.3x raw fsync: " verdict(ratio <= 1.3) }
$2 == "sale_encrypted_p50"     { print "budget sale_encrypted_p50 <= 1.15x a sale on a store in clear (issue 34): " verdict(ratio <= 1.15) }
$2 == "sale_protected_p50"     { print "budget sale_protected_p50 <= 1.1x a sale of the demo wallet, no protection (issue 30): " verdict(ratio <= 1.1) }
$2 == "block_generate_persist" { print "budget block_generate_persist <= 150 ms: " verdict(val <= 150) }
$2 == "block_audit"            { print "budget block_audit <= 150 ms: " verdict(val <= 150) }
$2 == "hash_floor"             { print "hash_floor: a block'"'"'s SHA-256 calls take " v[2] " on all cores, " b[2] " on one (no budget: the floor of the two below)" }
$2 == "block_generate_persist_vs_floor" { print "budget block_generate_persist_vs_floor <= 1.3x the hash floor: " verdict(ratio <= 1.3) }
$2 == "block_audit_vs_floor"   { print "budget block_audit_vs_floor <= 1.3x the hash floor: " verdict(ratio <= 1.3) }
$2 == "batch_sales_per_s"      { print "budget batch_sales_per_s >= 100000/s: " verdict(val >= 100000) }
$2 == "last_unit_lookup_1M"    { print "budget last_unit_lookup_1M <= 5 ms: " verdict(val <= 5000) }
$2 == "board_frame_render"     { print "budget board_frame_render well under 16 ms (at most three quarters of a 60 fps frame): " verdict(val <= 12.5) " (software GL on one thread; a blank frame takes " b[2] ")" }
$2 == "board_frame_render_portrait" { print "budget board_frame_render_portrait at most three quarters of a 60 fps frame (12.5 ms): " verdict(val <= 12.5) " (1080x1920; a blank frame takes " b[2] ")" }
$2 == "startup_to_first_frame" { print "budget startup_to_first_frame <= 1.5x hello: " verdict(ratio <= 1.5) }
$2 == "first_frame_fresh"      { print "budget first_frame_fresh <= 1.5x hello (an empty data directory, issue 33): " verdict(ratio <= 1.5) }
$2 == "rss_playing_mb"         { print "budget rss_playing_mb <= 1.3x hello: " verdict(ratio <= 1.3) }
$2 == "pack_claim_p50"         { print "budget pack_claim_p50 <= 25 ms (claim + verify; the kiosk persists it too): " verdict(val <= 25) }
$2 == "central_ingest_per_s"   { print "budget central_ingest_per_s >= 20000/s: " verdict(val >= 20000) }
$2 == "pss_playing_mb"         { print "budget pss_playing_mb <= 1.3x hello: " verdict(ratio <= 1.3) }
$2 == "pss_peak_after_unit"    { print "budget pss_peak_after_unit <= 1.3x hello (the highest PSS in the 5 s after a unit, issue 33): " verdict(ratio <= 1.3) }
$2 == "cpu_while_falling"      { print "budget cpu_while_falling <= 30 % of a core: " verdict(val <= 30) " (software GL; the hello window idle: " b[2] ")" }
$2 == "fleet_block_s"          { print "budget fleet_block_s <= 2x a lone kiosk'"'"'s block (" b[2] ") and <= 60 s (20 kiosks, one PostgreSQL; issue 33): " verdict(ratio <= 2 && val <= 60) }
$2 == "fleet_sale_p50"         { print "budget fleet_sale_p50 <= 1.1x a lone kiosk sale: " verdict(ratio <= 1.1) }
$2 == "fleet_sale_leased_p50"  { print "budget fleet_sale_leased_p50 <= 1.1x a lone kiosk account'"'"'s sale (issue 31): " verdict(ratio <= 1.1) }
$2 == "player_login_p50"       { print "budget player_login_p50 <= 50 ms (issue 31): " verdict(val <= 50) }
$2 == "fleet_view_5m_p99"      { print "budget fleet_view_5m_p99 <= 100 ms on 5.1 million sales (issue 32): " verdict(val <= 100) }
$2 == "pooled_call_exec_p50"   { print "pooled_call_exec_p50: a kiosk'"'"'s round through PgBouncer takes " v[2] " in exec mode, " b[2] " in cache_describe, OpenPooled'"'"'s (no budget: what decides the mode, docs/fleet.md)" }
$2 == "pooled_call_exec_p99"   { print "pooled_call_exec_p99: " v[2] " in exec mode, " b[2] " in cache_describe (no budget)" }
' $out/results.txt | sed 's/^/bench: /' >&2
exit $missing
