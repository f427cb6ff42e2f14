package central_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Paris on a machine without a zoneinfo package

	"starfortune/central"
	"starfortune/engine"
)

// movement is one ledger movement of a kiosk other than a sale.
func movement(seq uint64, kind engine.LedgerKind, cents engine.Cents, at time.Time) engine.FleetMovement {
	m := engine.FleetMovement{Seq: seq, ID: fmt.Sprintf("m%d", seq), Player: "ann", Kind: kind, Time: at}
	if kind == engine.LedgerPayout {
		m.Debit = cents
	} else {
		m.Credit = cents
	}
	return m
}

func pushMovements(t *testing.T, c *central.Client, ms []engine.FleetMovement) {
	t.Helper()
	if r, err := c.PushMovements(ctx, ms); err != nil || r.Applied != len(ms) {
		t.Fatalf("push movements: %+v %v", r, err)
	}
}

// The daily report's figures are, to the cent, what the kiosks sold and
// moved, per kiosk and day of the central's time zone (here the
// connection's: Europe/Paris, where 23:30 UTC is the next day).
func TestDailyReport(t *testing.T) {
	f := newFleet(t, 1, 1000, "k1", "k2")
	// Sales dated days before their packs' claims, on purpose: the clock
	// skew the central allows is widened for the test.
	f.set(t, "clock_skew = '100 years'")
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err) // time/tzdata is embedded: never missing
	}
	day1 := time.Date(2026, 12, 3, 9, 0, 0, 0, paris)
	day2 := time.Date(2026, 12, 3, 23, 30, 0, 0, time.UTC) // 00:30 on 4 December in Paris
	type want struct{ units, stakes, prizes, credits, grants, payouts int64 }
	expect := map[string]map[string]*want{"2026-12-03": {}, "2026-12-04": {}}

	p1, p2 := f.claim(t, "k1"), f.claim(t, "k2")
	var seq1, seq2 uint64
	sellOn := func(kiosk string, p engine.Pack, from uint32, n int, seq *uint64, at time.Time, day string) {
		sales := sell(t, p, from, n, *seq+1, "ann")
		w := expect[day][kiosk]
		if w == nil {
			w = &want{}
			expect[day][kiosk] = w
		}
		for i := range sales {
			sales[i].Time = at.Add(time.Duration(i) * time.Second)
			w.units++
			w.stakes += 50
			w.prizes += int64(sales[i].Unit.Prize(50))
		}
		push(t, f.kiosks[kiosk], sales)
		ms := ledger(sales, *seq+1)
		pushMovements(t, f.kiosks[kiosk], ms)
		*seq += uint64(n)
	}
	sellOn("k1", p1, 0, 40, &seq1, day1, "2026-12-03")
	sellOn("k2", p2, 0, 25, &seq2, day1.Add(time.Hour), "2026-12-03")
	sellOn("k1", p1, 40, 30, &seq1, day2, "2026-12-04")
	// Cash: k1 takes 20 € in and pays 13,50 € out on the 3rd, k2 grants
	// 5 € of demo funds on the 4th and takes 2 € in.
	pushMovements(t, f.kiosks["k1"], []engine.FleetMovement{movement(seq1+1, engine.LedgerCredit, 2000, day1), movement(seq1+2, engine.LedgerPayout, 1350, day1.Add(2*time.Hour))})
	pushMovements(t, f.kiosks["k2"], []engine.FleetMovement{movement(seq2+1, engine.LedgerGrant, 500, day2), movement(seq2+2, engine.LedgerCredit, 200, day2)})
	expect["2026-12-03"]["k1"].credits, expect["2026-12-03"]["k1"].payouts = 2000, 1350
	expect["2026-12-04"]["k2"] = &want{grants: 500, credits: 200}

	a, err := central.OpenAdmin(ctx, f.url+" timezone=Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rep, err := a.DailyReport(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.TimeZone != "Europe/Paris" || len(rep.Days) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, d := range rep.Days {
		var total want
		if len(d.Kiosks) != len(expect[d.Day]) {
			t.Fatalf("%s: %d kiosks, want %d", d.Day, len(d.Kiosks), len(expect[d.Day]))
		}
		for _, k := range d.Kiosks {
			w := expect[d.Day][k.Kiosk]
			got := want{k.Units, k.StakeCents, k.PrizeCents, k.CreditCents, k.GrantCents, k.PayoutCents}
			if w == nil || got != *w {
				t.Fatalf("%s %s: %+v, want %+v", d.Day, k.Kiosk, got, w)
			}
			total = want{total.units + w.units, total.stakes + w.stakes, total.prizes + w.prizes, total.credits + w.credits,
				total.grants + w.grants, total.payouts + w.payouts}
		}
		if got := (want{d.Total.Units, d.Total.StakeCents, d.Total.PrizeCents, d.Total.CreditCents, d.Total.GrantCents, d.Total.PayoutCents}); got != total {
			t.Fatalf("%s: total %+v, want %+v", d.Day, got, total)
		}
	}
	if rep.Days[0].Day != "2026-12-03" || rep.Days[0].Total.Units != 65 || rep.Days[1].Total.Units != 30 {
		t.Fatalf("days %+v", rep.Days)
	}
	// A period: only its days; a bad one is refused.
	if rep, err := a.DailyReport(ctx, "2026-12-04", "2026-12-04"); err != nil || len(rep.Days) != 1 || rep.Days[0].Day != "2026-12-04" {
		t.Fatalf("the 4th alone: %+v %v", rep, err)
	}
	if rep, err := a.DailyReport(ctx, "", "2026-12-03"); err != nil || len(rep.Days) != 1 || rep.Days[0].Day != "2026-12-03" {
		t.Fatalf("up to the 3rd: %+v %v", rep, err)
	}
	for _, bad := range [][2]string{{"2026-12-05", "2026-12-04"}, {"04/12/2026", ""}, {"", "2026-13-01"}} {
		if _, err := a.DailyReport(ctx, bad[0], bad[1]); !errors.Is(err, central.ErrBadPeriod) {
			t.Fatalf("period %q: %v, want ErrBadPeriod", bad, err)
		}
	}
}

// The règlement's table (article 3), per block: the closing report's tiers
// must add up to it.
var reglement = []struct {
	multiple int64
	count    int
}{{25000, 1}, {10000, 1}, {1000, 1}, {100, 50}, {20, 500}, {15, 800}, {10, 14000}, {5, 23020}, {2, 100000}, {1, 76900}, {0, 634727}}

// A block's closing report is refused while it is in play; once closed it
// counts, to the cent, what was sold and what was voided (a lost kiosk's
// pack, a released remainder), tier by tier up to the règlement's table.
func TestClosingReport(t *testing.T) {
	f := newFleet(t, 1, engine.BlockSize-1000, "k1", "k2")
	ref := engine.BlockRef{Emission: 1, Stake: 50, Number: 1}
	big, err := f.kiosks["k1"].ClaimPack(ctx, 50) // 849 000 units
	if err != nil {
		t.Fatal(err)
	}
	var sold []engine.FleetSale
	pushed := func(k string, s []engine.FleetSale) {
		push(t, f.kiosks[k], s)
		sold = append(sold, s...)
	}
	pushed("k1", sell(t, big, 0, 10, 1, "ann"))
	small := f.claim(t, "k2")
	pushed("k2", sell(t, small, 0, 4, 1, "bob"))
	// k2 returns the rest of its pack, whose outcomes it received: voided.
	if _, err := f.kiosks["k2"].ReleasePack(ctx, small.Serial, small.First+4); err != nil {
		t.Fatal(err)
	}

	// In play: no closing report, no sold units.
	if _, err := f.admin.ClosingReport(ctx, ref); !errors.Is(err, central.ErrBlockOpen) {
		t.Fatalf("closing report of a block in play: %v, want ErrBlockOpen", err)
	}
	if _, err := f.admin.BlockSales(ctx, ref); !errors.Is(err, central.ErrBlockOpen) {
		t.Fatalf("units of a block in play: %v, want ErrBlockOpen", err)
	}
	if reps, err := f.admin.ClosingReports(ctx); err != nil || len(reps) != 0 {
		t.Fatalf("closing reports with no block closed: %+v %v", reps, err)
	}
	if _, err := f.admin.ClosingReport(ctx, engine.BlockRef{Emission: 1, Stake: 50, Number: 2}); !errors.Is(err, central.ErrNoBlock) {
		t.Fatalf("closing report of no block: %v, want ErrNoBlock", err)
	}

	// k1 is lost: its pack voided; every position is sold or voided: the
	// block closes.
	if err := f.admin.VoidPack(ctx, big.Serial, "kiosk stolen"); err != nil {
		t.Fatal(err)
	}
	r, err := f.admin.ClosingReport(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}

	// The independent tally: the sales the test pushed, and the voided
	// units (the lost pack's unsold ones, the released remainder) as the
	// kiosks received them.
	var paid, voidedPrizes int64
	soldTier, voidedTier := map[int64]int{}, map[int64]int{}
	for _, s := range sold {
		paid += int64(s.Unit.Prize(50))
		soldTier[int64(s.Unit.Prize(50))/50]++
	}
	for _, v := range []struct {
		p    engine.Pack
		from uint32
	}{{big, 10}, {small, 4}} {
		for i := v.from; i < v.p.Count(); i++ {
			u, err := v.p.Unit(i)
			if err != nil {
				t.Fatal(err)
			}
			voidedPrizes += int64(u.Prize(50))
			voidedTier[int64(u.Prize(50))/50]++
		}
	}
	if r.Block != "01-050-0001" || r.Sold != 14 || r.Voided != int(big.Count())-10+int(small.Count())-4 || r.Sold+r.Voided != engine.BlockSize {
		t.Fatalf("units: %+v", r)
	}
	if r.PrizesPaidCents != paid || r.PrizesVoidedCents != voidedPrizes || paid+voidedPrizes != 297_500_00 {
		t.Fatalf("prizes paid %d voided %d, want %d and %d (297 500 € in all)", r.PrizesPaidCents, r.PrizesVoidedCents, paid, voidedPrizes)
	}
	if len(r.Tiers) != len(reglement) || !r.TableMatches {
		t.Fatalf("tiers %+v", r.Tiers)
	}
	for i, tc := range r.Tiers {
		g := reglement[i]
		if tc.Multiple != g.multiple || tc.Table != g.count || tc.PrizeCents != 50*g.multiple || tc.Sold != soldTier[g.multiple] ||
			tc.Voided != voidedTier[g.multiple] || tc.Sold+tc.Voided != g.count {
			t.Fatalf("tier ×%d: %+v, sold %d voided %d by the test's tally, %d in the règlement", g.multiple, tc, soldTier[g.multiple], voidedTier[g.multiple], g.count)
		}
	}
	if want := []central.KioskUnits{{"k1", 10}, {"k2", 4}}; !slices.Equal(r.Kiosks, want) {
		t.Fatalf("kiosks %+v, want %+v", r.Kiosks, want)
	}
	blocks, _ := f.admin.Blocks(ctx)
	if r.Commitment != big.Root.String() || r.Seed == "" || r.Seed != blocks[0].Seed || r.OpenedAt == nil ||
		r.OpenedAt.Before(r.DrawnAt) || r.ClosedAt.Before(*r.OpenedAt) || !r.ClosedAt.Equal(*blocks[0].ClosedAt) {
		t.Fatalf("commitment, seed, times: %+v (block %+v)", r, blocks[0])
	}
	if reps, err := f.admin.ClosingReports(ctx); err != nil || len(reps) != 1 || reps[0].PrizesPaidCents != paid {
		t.Fatalf("all closing reports: %+v %v", reps, err)
	}
}
