package central_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/central"
	"starfortune/engine"
)

// The fleet view counts what the kiosks claimed, sold and said, the same
// for a kiosk (fleet_view) and for the owner; a kiosk silent for longer
// than engine.OnlineWithin shows offline.
func TestFleetView(t *testing.T) {
	f := newFleet(t, 2, 1000, "k1", "k2", "k3")
	k1a, k1b := f.claim(t, "k1"), f.claim(t, "k1")
	push(t, f.kiosks["k1"], sell(t, k1a, 0, 10, 1, "ann"))
	k2 := f.claim(t, "k2")
	push(t, f.kiosks["k2"], sell(t, k2, 0, 1000, 1, "bob")) // sold out: no longer held
	if _, err := f.kiosks["k1"].Heartbeat(ctx, 7, engine.JournalHead{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.kiosks["k2"].Heartbeat(ctx, 0, engine.JournalHead{}); err != nil {
		t.Fatal(err)
	}
	f.exec(t, "UPDATE kiosks SET last_seen = now() - $1::interval WHERE id = 'k2'", (engine.OnlineWithin + time.Second).String())

	v := f.view(t, "k3")
	if len(v.Kiosks) != 3 || v.At.IsZero() {
		t.Fatalf("view %+v", v)
	}
	k := v.Kiosks[0]
	if k.ID != "k1" || !k.Online(v.At) || k.Backlog != 7 || k.BacklogAt.IsZero() || k.Sales != 10 ||
		!slices.Equal(k.Held, []engine.HeldStake{{Stake: 50, Packs: 2, Left: 1990}}) {
		t.Fatalf("k1: %+v", k)
	}
	if k := v.Kiosks[1]; k.ID != "k2" || k.Online(v.At) || k.LastSeen.IsZero() || k.Sales != 1000 || len(k.Held) != 0 {
		t.Fatalf("k2, silent for longer than %s: %+v (at %s)", engine.OnlineWithin, k, v.At)
	}
	if k := v.Kiosks[2]; k.ID != "k3" || k.Online(v.At) || !k.LastSeen.IsZero() || k.Sales != 0 || k.Backlog != 0 || len(k.Held) != 0 {
		t.Fatalf("k3, never heard of: %+v", k)
	}
	want := []engine.StakeProgress{{Stake: 50, Blocks: 2, Closed: 0, Size: 2 * engine.BlockSize, HandedOut: 3000, Sold: 1010}}
	if !slices.Equal(v.Stakes, want) {
		t.Fatalf("stakes %+v, want %+v", v.Stakes, want)
	}

	// k1's second pack voided: it no longer holds it; the stake counts it.
	if err := f.admin.VoidPack(ctx, k1b.Serial, "test"); err != nil {
		t.Fatal(err)
	}
	v = f.view(t, "k1")
	if h := v.Kiosks[0].Held; !slices.Equal(h, []engine.HeldStake{{Stake: 50, Packs: 1, Left: 990}}) {
		t.Fatalf("k1 after the void: %+v", h)
	}
	if s := v.Stakes[0]; s.Voided != 1000 || s.Sold != 1010 || s.Closed != 0 {
		t.Fatalf("stake after the void: %+v", s)
	}

	// The second block, every pack voided, closes: its counts are then
	// its totals, kept as it closed (migrations/0010), and the view reads
	// the same as the audit's recount.
	f.exec(t, "UPDATE packs SET status = 'voided' FROM blocks bl WHERE bl.id = packs.block_id AND bl.number = 2 AND packs.status = 'available'")
	f.exec(t, "SELECT sf_close_done()")
	v = f.view(t, "k1")
	want = []engine.StakeProgress{{Stake: 50, Blocks: 2, Closed: 1, Size: 2 * engine.BlockSize, HandedOut: 3000 + engine.BlockSize, Sold: 1010,
		Voided: 1000 + engine.BlockSize}}
	if !slices.Equal(v.Stakes, want) {
		t.Fatalf("stakes after a closure %+v, want %+v", v.Stakes, want)
	}
	f.exec(t, `DO $$ BEGIN
		IF (SELECT count(*) FROM block_totals t JOIN block_counts n USING (block_id)
		     WHERE (t.handed_out, t.sold, t.voided) = (n.handed_out, n.sold, n.voided)) <> 1 THEN
			RAISE EXCEPTION 'block totals differ from the recount: %', (SELECT jsonb_agg(t) FROM block_totals t);
		END IF;
	END $$`)
	if k := v.Kiosks[0]; k.Sales != 10 {
		t.Fatalf("k1's sales after the closure: %d", k.Sales)
	}

	// A role that is not a kiosk is refused, as for every kiosk function.
	notKiosk, _ := central.Open(ctx, f.url)
	defer notKiosk.Close()
	if _, err := notKiosk.FleetView(ctx); !errors.Is(err, engine.ErrUnknownKiosk) {
		t.Fatalf("fleet view by a role that is not a kiosk: %v", err)
	}
}

// view reads the fleet view as kiosk id, checks the owner reads the same,
// and returns it.
func (f *fleet) view(t *testing.T, id string) engine.FleetView {
	t.Helper()
	v, err := f.kiosks[id].FleetView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.admin.FleetView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o.At = v.At
	if !viewsEqual(v, o) {
		t.Fatalf("kiosk %s sees %+v, the owner %+v", id, v, o)
	}
	return v
}

func viewsEqual(a, b engine.FleetView) bool {
	return a.At.Equal(b.At) && slices.Equal(a.Stakes, b.Stakes) && slices.EqualFunc(a.Kiosks, b.Kiosks, func(x, y engine.KioskView) bool {
		return x.ID == y.ID && x.LastSeen.Equal(y.LastSeen) && x.Backlog == y.Backlog && x.BacklogAt.Equal(y.BacklogAt) &&
			x.Sales == y.Sales && slices.Equal(x.Held, y.Held)
	})
}

// What a kiosk role may execute is exactly its functions: 0002's and
// the later migrations', nothing of the owner's helpers nor of pgcrypto.
func TestKioskRoleExecutesOnlyItsFunctions(t *testing.T) {
	f := newFleet(t, 0, 0, "k1")
	conn, err := pgx.Connect(ctx, f.urls["k1"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p
		WHERE p.pronamespace = 'public'::regnamespace AND has_function_privilege(p.oid, 'EXECUTE') ORDER BY 1`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"claim_pack(integer)", "fetch_pack(text)", "fleet_view()", "heartbeat(integer,bigint,bytea)", "journal_anchor()", "kiosk_data_key()", "kiosk_state()",
		"lease_states(bigint[])", "lookup_ticket(text)", "player_login(text,text)", "player_lookup(text,text,text)", "player_set_limit(bigint,text,bigint)", "player_take_break(bigint,text)",
		"push_movements(bigint[],text[],text[],text[],bigint[],bigint[],text[],timestamp with time zone[],bigint[],jsonb[])", "push_movements(jsonb)",
		"push_sales(bigint[],text[],text[],integer[],timestamp with time zone[],text[],bigint[],bigint[],bytea[],boolean[])", "push_sales(jsonb)", "release_pack(text,integer)", "renew_lease(bigint,bigint)", "return_lease(bigint,bigint)",
		"sf_call(text,bigint,bytea)"}
	if !slices.Equal(got, want) {
		t.Fatalf("a kiosk may execute %q, want %q", got, want)
	}
	// Each waits 2 s at most for a lock (0005): a function replaced by a
	// later migration keeps it only if it says so again.
	rows, _ = conn.Query(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p
		WHERE p.pronamespace = 'public'::regnamespace AND has_function_privilege(p.oid, 'EXECUTE')
		  AND NOT coalesce('lock_timeout=2s' = ANY (p.proconfig), false) ORDER BY 1`)
	if unbounded, err := pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(unbounded) != 0 {
		t.Fatalf("kiosk functions without their lock timeout: %q %v", unbounded, err)
	}
}

// A kiosk cannot enumerate the sold tickets of a block in play (and add up
// the prizes paid from it so far): it may look up 100 tickets sold
// elsewhere a day; its own, a repeated one and closed blocks' are free.
func TestTicketLookupsAreRationedWhileInPlay(t *testing.T) {
	f := newFleet(t, 1, engine.BlockSize, "k1", "k2")
	whole, err := f.kiosks["k2"].ClaimPack(ctx, 50) // the whole block, not verified (quick)
	if err != nil {
		t.Fatal(err)
	}
	push(t, f.kiosks["k2"], sell(t, whole, 0, 102, 1, "bob"))
	k1, k2 := f.kiosks["k1"], f.kiosks["k2"]
	for i := range uint32(100) {
		if _, err := k1.LookupTicket(ctx, whole.Ticket(i)); err != nil {
			t.Fatalf("look-up %d: %v", i, err)
		}
	}
	if _, err := k1.LookupTicket(ctx, whole.Ticket(7)); err != nil {
		t.Fatalf("a ticket looked up again: %v", err)
	}
	for _, i := range []uint32{100, 5000} { // sold, and unsold: both refused
		if _, err := k1.LookupTicket(ctx, whole.Ticket(i)); !errors.Is(err, engine.ErrLookupLimit) {
			t.Fatalf("look-up 101 (position %d): %v, want ErrLookupLimit", i, err)
		}
	}
	for i := range uint32(102) {
		if _, err := k2.LookupTicket(ctx, whole.Ticket(i)); err != nil {
			t.Fatalf("k2 looking up its own sale %d: %v", i, err)
		}
	}
	// A day later the budget is back.
	f.exec(t, "UPDATE ticket_lookups SET at = at - interval '1 day'")
	if _, err := k1.LookupTicket(ctx, whole.Ticket(100)); err != nil {
		t.Fatalf("a day later: %v", err)
	}
	// Closed, the block is public: no limit.
	f.exec(t, "UPDATE ticket_lookups SET at = now()")
	for i := range uint32(100) {
		k1.LookupTicket(ctx, whole.Ticket(200+i))
	}
	if _, err := k1.LookupTicket(ctx, whole.Ticket(101)); !errors.Is(err, engine.ErrLookupLimit) {
		t.Fatalf("over the limit again: %v", err)
	}
	if err := f.admin.VoidPack(ctx, whole.Serial, "test"); err != nil {
		t.Fatal(err)
	}
	if s, err := k1.LookupTicket(ctx, whole.Ticket(101)); err != nil || s.Kiosk != "k2" {
		t.Fatalf("look-up in a closed block: %+v %v", s, err)
	}
}
