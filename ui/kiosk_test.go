package ui_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
	"starfortune/present"
	"starfortune/ui"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC // dates in goldens
	os.Exit(m.Run())
}

// blocks are drawn once from fixed seeds, so every outcome is known.
var blocks = sync.OnceValue(func() []*engine.Block {
	var out []*engine.Block
	for i, s := range engine.Stakes {
		out = append(out, engine.GenerateBlock(engine.BlockRef{Emission: 1, Stake: s, Number: 1}, engine.Seed{byte(i + 1), 42}))
	}
	return out
})

func block(stake engine.Cents) *engine.Block {
	for _, b := range blocks() {
		if b.Ref.Stake == stake {
			return b
		}
	}
	panic("no block")
}

type rig struct {
	k     *ui.Kiosk
	svc   *engine.Service
	store *memstore.Store
	clock *clock
}

// clock lets a test move the engine's time: the wall clock, and the
// monotonic one lockouts run on (atomic: a lockout's keeper reads it).
type clock struct {
	now  time.Time
	mono atomic.Int64
}

func (c *clock) Now() time.Time { return c.now }

func (c *clock) Mono() time.Duration { return time.Duration(c.mono.Load()) }

// run moves both clocks: time passes.
func (c *clock) run(d time.Duration) {
	c.now = c.now.Add(d)
	c.mono.Add(int64(d))
}

// newRig opens a kiosk on an in-memory store holding the fixed blocks.
func newRig(t testing.TB, o ui.Options) rig {
	t.Helper()
	return newRigAs(t, o, func(s *engine.Service) ui.Game { return s })
}

// newRigAs is newRig with the window's game made from the service by as.
func newRigAs(t testing.TB, o ui.Options, as func(*engine.Service) ui.Game) rig {
	t.Helper()
	a := test.NewTempApp(t)
	r := newGame(t, engine.Protection{})
	r.k = ui.NewKiosk(a, as(r.svc), o)
	t.Cleanup(r.k.Stop)
	r.k.Wait()
	return r
}

// newGame is a service on an in-memory store holding the fixed blocks, on
// a clock the test moves, protecting players with p (zero: the defaults).
func newGame(t testing.TB, p engine.Protection) rig {
	t.Helper()
	store := memstore.New()
	for _, b := range blocks() {
		if err := store.PutBlock(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	c := &clock{now: time.Date(2026, 12, 2, 14, 5, 0, 0, time.UTC)}
	// A PIN hash records its iteration count; the real one is slow under -race.
	svc, err := engine.NewService(context.Background(), store,
		engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000, Now: c.Now, Monotonic: c.Mono, PINIterations: 1000, Protection: p}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return rig{svc: svc, store: store, clock: c}
}

func (r rig) key(name fyne.KeyName) {
	r.k.Window().Canvas().OnTypedKey()(&fyne.KeyEvent{Name: name})
	r.k.Wait()
}

func (r rig) tapPlay() {
	test.Tap(r.k.Controls().PlayButton())
	r.k.Wait()
}

func (r rig) tapPuck(slot int) {
	test.TapAt(r.k.Board(), r.k.Board().PuckPosition(slot))
	r.k.Wait()
}

func (r rig) history(t *testing.T) []engine.Sale {
	t.Helper()
	h, _, err := r.svc.History(context.Background(), engine.DemoPlayer, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestStartShowsFunds(t *testing.T) {
	r := newRig(t, ui.Options{})
	if got := r.k.Controls().Funds(); got != "100,00 €" {
		t.Errorf("funds %q, want 100,00 €", got)
	}
	if r.k.Window().Title() != "Star Fortune" {
		t.Errorf("title %q", r.k.Window().Title())
	}
}

func TestPlaySellsAUnit(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.tapPlay()
	h := r.history(t)
	if len(h) != 1 {
		t.Fatalf("history has %d units, want 1", len(h))
	}
	sale := h[0]
	if sale.BalanceBefore != 10_000 || sale.Stake() != 100 {
		t.Fatalf("sold %+v", sale.Record)
	}
	if got, want := r.k.Controls().Funds(), "99,00 €"; got != want {
		t.Errorf("funds shown %q, want %q (stake debited, prize not yet shown)", got, want)
	}
	if !r.k.Board().Offering() {
		t.Error("no pucks on offer after JOUER")
	}
	if !r.k.Controls().PlayButton().Disabled() || !r.k.Controls().StakeButtons()[0].Disabled() {
		t.Error("JOUER and stakes must be disabled while a unit is in play")
	}
	r.tapPlay() // ignored while in play
	if n := len(r.history(t)); n != 1 {
		t.Errorf("a second JOUER during play sold a unit: %d in history", n)
	}
}

// playOut plays the current unit to its end with puck slot, pressing GO
// whenever asked.
func (r rig) playOut(t *testing.T, slot int) {
	t.Helper()
	for range 4 {
		switch {
		case r.k.Bonus().Waiting():
			test.Tap(r.k.Bonus().GoButton())
			r.k.Wait()
		case r.k.Board().Offering():
			r.tapPuck(slot)
		default:
			return
		}
	}
}

func TestPuckFallsToItsDestination(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.tapPlay()
	r.tapPuck(2)
	sale := r.history(t)[0]
	if sale.Reveal.Slots[0] != 2 {
		t.Fatalf("reveal %+v: the pick was not recorded", sale.Reveal)
	}
	if r.k.Board().Falling() {
		t.Error("the fall did not reach its end")
	}
	r.playOut(t, 0)
	sale = r.history(t)[0]
	if !sale.Done() {
		t.Fatalf("unit not done: %+v", sale.Reveal)
	}
	if got, want := r.k.Controls().Funds(), present.French.Money(sale.BalanceAfter); got != want {
		t.Errorf("funds %q after the reveal, want %q", got, want)
	}
	if r.k.Controls().PlayButton().Disabled() {
		t.Error("JOUER still disabled after the unit")
	}
}

// bonusIndex is the first unit of the 0,50 € block whose first drop lands
// in a BONUS box.
func bonusIndex(t testing.TB) int {
	b := block(50)
	for i := range 500 {
		u, err := b.Unit(i)
		if err != nil {
			t.Fatal(err)
		}
		if u.Drops[0].Dest.Bonus {
			return i
		}
	}
	t.Fatal("no bonus unit in the first 500")
	return 0
}

// toBonus sells the units before the first bonus one, then plays it up to
// its GO.
func toBonus(t *testing.T, r rig) engine.Unit {
	t.Helper()
	i := bonusIndex(t)
	if i > 0 {
		if _, err := r.svc.Sell(context.Background(), engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: i,
			Picks: func(int) [2]int { return [2]int{0, 0} }, Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	test.Tap(r.k.Controls().StakeButtons()[0])
	r.tapPlay()
	r.key(fyne.Key2)
	if !r.k.Bonus().Waiting() {
		t.Fatal("no GO after a puck reached a BONUS box")
	}
	u, _ := block(50).Unit(i)
	return u
}

func TestBonusShowsGoAndRevealsTheSum(t *testing.T) {
	r := newRig(t, ui.Options{})
	u := toBonus(t, r)
	r.key(fyne.KeySpace)
	want := present.French.Money(u.Drops[0].Value(50))
	if got := r.k.Bonus().Value(); got != want {
		t.Errorf("revealed %q, want %q", got, want)
	}
	if !r.history(t)[0].Reveal.Go[0] {
		t.Error("GO not recorded")
	}
}

func TestStorageFailureMovesNothing(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.store.Fail = errors.New("disk full")
	r.tapPlay()
	r.store.Fail = nil
	if got, want := r.k.Controls().Message(), "Terminal hors service, appelez un responsable"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got := r.k.Controls().Funds(); got != "100,00 €" {
		t.Errorf("funds %q after a failed sale", got)
	}
	if n := len(r.history(t)); n != 0 {
		t.Errorf("%d units sold by a failed JOUER", n)
	}
	if r.k.Board().Offering() || r.k.Controls().PlayButton().Disabled() {
		t.Error("the board moved or JOUER stayed disabled after a failed sale")
	}
}

// A full disk refuses JOUER before anything moves, and says so.
func TestFullDiskSaysSo(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.store.Fail = fmt.Errorf("%w: 3 MiB free", engine.ErrDiskFull)
	r.tapPlay()
	r.store.Fail = nil
	if got, want := r.k.Controls().Message(), "Terminal momentanément indisponible (disque plein) : rien n'a été débité. Appelez un responsable."; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got := r.k.Controls().Funds(); got != "100,00 €" || len(r.history(t)) != 0 {
		t.Errorf("funds %q after a refused sale", got)
	}
}

func TestKeyboard(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.key(fyne.KeyReturn)
	if n := len(r.history(t)); n != 1 {
		t.Fatalf("Enter sold %d units, want 1", n)
	}
	r.key(fyne.Key3)
	if got := r.history(t)[0].Reveal.Slots[0]; got != 2 {
		t.Fatalf("key 3 picked slot %d", got)
	}
	for range 3 {
		r.key(fyne.KeySpace)
		r.key(fyne.Key1)
	}
	if s := r.history(t)[0]; !s.Done() || s.Reveal.Slots[1] != 0 {
		t.Errorf("keys did not finish the unit: %+v", s.Reveal)
	}
}

func TestResumeOffersTheUnfinishedUnit(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.tapPlay()
	r.tapPuck(1)
	// A new window on the same engine: the unit is at its second step.
	k := ui.NewKiosk(test.NewTempApp(t), r.svc, ui.Options{})
	k.Wait()
	sale := r.history(t)[0]
	k.Resume(sale)
	k.Wait()
	if sale.Next().Kind == engine.StepPick && !k.Board().Offering() {
		t.Error("resume did not offer the second puck")
	}
	if sale.Next().Kind == engine.StepGo && !k.Bonus().Waiting() {
		t.Error("resume did not show GO")
	}
}

func TestRecallMovesNoMoney(t *testing.T) {
	r := newRig(t, ui.Options{})
	r.tapPlay()
	r.playOut(t, 1)
	before := r.history(t)
	test.Tap(r.k.Controls().HistoryButton())
	r.k.Wait()
	r.k.Recall(before[0])
	r.k.Wait()
	if !r.k.Recalling() {
		t.Fatal("not in RAPPEL mode")
	}
	after := r.history(t)
	if len(after) != len(before) || after[0].BalanceAfter != before[0].BalanceAfter {
		t.Error("recall changed the history")
	}
	bal, _ := r.svc.Balance(context.Background(), engine.DemoPlayer)
	if bal != before[0].BalanceAfter {
		t.Errorf("balance %s after recall, want %s", bal, before[0].BalanceAfter)
	}
}
