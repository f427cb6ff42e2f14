// Command torture is the workload the fault tests of package e2e kill: it
// drives the engine on a data directory the way the window does (units
// sold and revealed step by step, or in batches; an attendant's credits;
// payouts) and prints each operation as a JSON line once it returned, that
// is once it is durable. The shipped binary's command line reveals no unit
// step by step, so the tests cannot kill it there.
//
//	torture [-tuning small|vlog] run DIR SEED
//	torture [-tuning small] check DIR < checkInput (JSON)
//
// check opens DIR as the next start would, checks that it serves, audits
// clean and holds every operation the killed runs printed, and prints the
// tickets it found (JSON), which the next check takes as known.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"starfortune/cli"
	"starfortune/engine"
	"starfortune/internal/fsync"
	"starfortune/keyring"
	"starfortune/storage"
)

// checkInput is what check reads: the operations printed on the data
// directory so far, and the tickets earlier checks found.
type checkInput struct {
	Printed []opLine `json:"printed"`
	Known   []string `json:"known"`
}

func main() {
	tuning := flag.String("tuning", "", "size Badger small so that flushes, compactions (small) and value-log GC (vlog) happen within seconds")
	flag.Parse()
	if *tuning != "" {
		t, ok := storage.PowerCutTunings[*tuning]
		if !ok {
			fail(fmt.Errorf("no tuning %q", *tuning))
		}
		if *tuning == "vlog" {
			t.OnGC = func(event string) { fmt.Fprintf(os.Stdout, "{\"op\":\"gc-%s\"}\n", event) }
		}
		storage.Tune(t)
	}
	args := flag.Args()
	switch {
	case len(args) == 3 && args[0] == "run":
		seed, err := strconv.ParseUint(args[2], 10, 64)
		if err != nil {
			fail(err)
		}
		fail(torture(args[1], seed))
	case len(args) == 2 && args[0] == "check":
		var in checkInput
		if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
			fail(err)
		}
		known := map[string]bool{}
		for _, k := range in.Known {
			known[k] = true
		}
		if err := check(args[1], in.Printed, known); err != nil {
			fail(err)
		}
		out := []string{}
		for k := range known {
			out = append(out, k)
		}
		if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
			fail(err)
		}
	default:
		fail(fmt.Errorf("usage: torture [-tuning small|vlog] run DIR SEED | check DIR"))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "torture:", err)
	os.Exit(1)
}

// opLine is what the torture child prints once an operation has returned,
// that is once it is durable.
type opLine struct {
	Op      string `json:"op"` // "sold", "step", "credit", "payout"
	Ticket  string `json:"ticket,omitempty"`
	Player  string `json:"player"`
	Done    bool   `json:"done,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	Balance int64  `json:"balance,omitempty"`
}

// torturePlayers are the demo wallet and the accounts of the first two
// cards: opened by the first run (an opening is atomic: a kill leaves it
// done or not), their limits far above the workload's play.
var torturePlayers = []string{engine.DemoPlayer, string(engine.NewCard(1)), string(engine.NewCard(2))}

// tortureConfig is the kiosk's, its protection tightened so that the kills
// fall on every kind of protected operation: prizes of 20 € and more held
// and paid by hand (10 € set aside), a reality check every minute.
func tortureConfig() engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Protection = engine.DefaultProtection()
	cfg.Protection.PayoutThreshold, cfg.Protection.HandpayThreshold, cfg.Protection.RealityCheck = 1_000, 2_000, time.Minute
	return cfg
}

// tortureCardPIN is the PIN of the workload's cards.
const tortureCardPIN = "2580"

// openAccounts opens the workload's accounts the first time, and a session
// on each (closing the one a kill left open).
func openAccounts(ctx context.Context, svc *engine.Service) error {
	for i := uint64(1); i <= 2; i++ {
		card := engine.NewCard(i)
		if _, err := svc.ByCard(ctx, card); errors.Is(err, engine.ErrUnknownCard) {
			id := engine.Identity{Holder: "Torture " + card.Spaced(), Born: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC), DocType: "TEST", DocNumber: string(card)}
			huge := engine.Limits{{Kind: engine.LimitDeposit, Window: engine.WindowWeek}: engine.MaxAmount, {Kind: engine.LimitStake, Window: engine.WindowWeek}: engine.MaxAmount}
			if i == 2 { // the second player reaches a stake limit, and the kills fall on sales it stops
				huge[engine.LimitKey{Kind: engine.LimitStake, Window: engine.WindowDay}] = 30_000
			}
			if _, err := svc.Open(ctx, "torture", engine.OpenRequest{Identity: id, Limits: huge, PIN: tortureCardPIN}); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		if _, err := svc.OpenSession(ctx, card, tortureCardPIN); err != nil {
			return err
		}
	}
	return nil
}

// protected deals with what protects a player the way an attendant and
// the player would: a prize held is checked and paid by hand, a reality
// check acknowledged, funds set aside replaced by a credit, a limit
// reached respected. It reports
// whether err was one of those (and the workload goes on).
func protected(ctx context.Context, svc *engine.Service, p string, err error) (bool, error) {
	var held *engine.HeldError
	switch {
	case errors.As(err, &held):
		for _, h := range held.Held {
			if _, err := svc.CheckIdentity(ctx, "torture", p, h.Ticket, "TEST "+p); err != nil {
				return true, err
			}
			if _, err := svc.PayHeld(ctx, "torture", p, h.Ticket, "virement", "T-"+h.Ticket.String()); err != nil {
				return true, err
			}
		}
		return true, nil
	case errors.Is(err, engine.ErrRealityCheck):
		_, err := svc.RealityCheck(ctx, p)
		return true, err
	case errors.Is(err, engine.ErrInsufficientFunds) && p != engine.DemoPlayer:
		_, err := svc.Credit(ctx, p, 5_000, "torture")
		return true, err
	case errors.Is(err, engine.ErrLimit):
		return true, nil // the player stops playing: another plays
	}
	return false, err
}

// torture runs random sales (step by step or in batches), reveal steps,
// credits and payouts on dir forever, printing each once it returned.
// It is the child the fault tests kill.
func torture(dir string, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 7))
	enc := json.NewEncoder(os.Stdout)
	ctx := context.Background()
	keys, err := unlock(dir)
	if err != nil {
		return err
	}
	err = cli.WithGame(ctx, cli.DataDir(dir), keys, tortureConfig(), zerolog.Nop(), os.Stderr, func(svc *engine.Service, _ *storage.Store) error {
		if err := openAccounts(ctx, svc); err != nil {
			return err
		}
		for {
			p := torturePlayers[r.IntN(len(torturePlayers))]
			stake := engine.Stakes[r.IntN(len(engine.Stakes))]
			if bal, err := svc.Balance(ctx, p); err != nil {
				return err
			} else if bal < 500 { // an attendant's cash-in, from the panel or the CLI
				op, credit := "credit", func() (engine.LedgerEntry, error) { return svc.Credit(ctx, p, 5_000, "torture") }
				if r.IntN(2) == 0 {
					op, credit = "opcredit", func() (engine.LedgerEntry, error) { return svc.OperatorCredit(ctx, "operator", p, 5_000) }
				}
				l, err := credit()
				if err != nil {
					return err
				}
				enc.Encode(opLine{Op: op, Player: p, Seq: l.Seq, Balance: int64(l.Balance)})
				continue
			}
			switch n := r.IntN(10); {
			case n < 5: // a unit played the way the kiosk plays it
				sales, err := svc.Sell(ctx, engine.SellRequest{Player: p, Stake: stake, Count: 1, Actor: "torture"})
				if handled, err := protected(ctx, svc, p, err); handled || err != nil {
					if err != nil {
						return err
					}
					continue
				}
				sale := sales[0]
				enc.Encode(opLine{Op: "sold", Ticket: sale.Ticket.String(), Player: p})
				for !sale.Done() {
					step := sale.Next()
					if step.Kind == engine.StepPick {
						sale, err = svc.Pick(ctx, sale.Ticket, step.Drop, r.IntN(engine.NumSlots))
					} else {
						sale, err = svc.Go(ctx, sale.Ticket, step.Drop)
					}
					if err != nil {
						return err
					}
					enc.Encode(opLine{Op: "step", Ticket: sale.Ticket.String(), Player: p, Done: sale.Done()})
				}
			case n < 8:
				sales, err := svc.Sell(ctx, engine.SellRequest{Player: p, Stake: stake, Count: 1 + r.IntN(40),
					Picks: func(int) [2]int { return [2]int{r.IntN(3), r.IntN(3)} }, Actor: "torture"})
				if handled, err := protected(ctx, svc, p, err); handled || err != nil {
					if err != nil {
						return err
					}
					continue
				}
				for _, s := range sales {
					enc.Encode(opLine{Op: "sold", Ticket: s.Ticket.String(), Player: p, Done: true})
				}
			default:
				l, err := svc.Payout(ctx, p, 100, "torture")
				if handled, err := protected(ctx, svc, p, err); handled || err != nil {
					if err != nil {
						return err
					}
					continue
				}
				enc.Encode(opLine{Op: "payout", Player: p, Seq: l.Seq, Balance: int64(l.Balance)})
			}
		}
	})
	return err
}

// check opens dir as the next start would and checks it against what the
// killed workloads printed. known holds the tickets found at earlier
// checks, and gets this check's.
func check(dir string, printed []opLine, known map[string]bool) error {
	ctx := context.Background()
	keys, err := unlock(dir)
	if err != nil {
		return err
	}
	return cli.WithGame(ctx, cli.DataDir(dir), keys, tortureConfig(), zerolog.Nop(), io.Discard, func(svc *engine.Service, _ *storage.Store) error {
		if err := svc.Health(); err != nil {
			return fmt.Errorf("out of service after a kill: %w", err)
		}
		rep, err := svc.Audit(ctx, nil)
		if err != nil || !rep.OK() {
			return fmt.Errorf("audit after a kill: %v %q", err, rep.Findings)
		}
		events, err := svc.OperatorLog(ctx, 1<<20)
		if err != nil {
			return err
		}
		operatorLogged := map[string]bool{}
		for _, e := range events {
			if before, _, ok := strings.Cut(e.Detail, " balance "); ok && e.Action == "credit" {
				operatorLogged[before] = true
			}
		}
		seen := map[string]opLine{}
		for _, l := range printed {
			switch l.Op {
			case "sold", "step":
				if l.Op == "sold" || l.Done {
					seen[l.Ticket] = l
				}
				tk, _ := engine.ParseTicket(l.Ticket)
				sale, err := svc.Lookup(ctx, tk)
				if err != nil {
					return fmt.Errorf("printed ticket %s lost: %w", l.Ticket, err)
				}
				if l.Done && !sale.Done() {
					return fmt.Errorf("ticket %s: printed as revealed, store says %+v", l.Ticket, sale.Next())
				}
			case "credit", "payout", "opcredit":
				entries, err := svc.LedgerPage(ctx, l.Player, 1<<20)
				if err != nil {
					return err
				}
				found := false
				for _, e := range entries {
					found = found || e.Seq == l.Seq && int64(e.Balance) == l.Balance
				}
				if !found {
					return fmt.Errorf("%s of %s (entry %d) lost", l.Op, l.Player, l.Seq)
				}
				if l.Op == "opcredit" && !operatorLogged[fmt.Sprintf("player %s amount 50.00 ledger %d", l.Player, l.Seq)] {
					return fmt.Errorf("operator credit of %s (entry %d) missing from the operator log", l.Player, l.Seq)
				}
			}
		}
		for _, p := range torturePlayers {
			hist, _, err := svc.History(ctx, p, 0, 1<<20)
			if err != nil {
				return err
			}
			// Units never printed (sold, then killed before the line) can
			// only be the newest: they are the player's "last unit".
			shown := func(s engine.Sale) bool {
				_, ok := seen[s.Ticket.String()]
				return ok || known[s.Ticket.String()]
			}
			for i, s := range hist {
				if !shown(s) && i > 0 && shown(hist[i-1]) {
					return fmt.Errorf("player %s: unit %s was never shown but is not the newest (%s is newer)", p, s.Ticket, hist[i-1].Ticket)
				}
			}
			for _, s := range hist {
				known[s.Ticket.String()] = true
			}
			if len(hist) > 0 && !hist[0].Done() {
				un, ok, err := svc.Unfinished(ctx, p)
				if err != nil || !ok || un.Ticket != hist[0].Ticket {
					return fmt.Errorf("player %s: interrupted unit %s not offered for resumption (%v)", p, hist[0].Ticket, err)
				}
			}
		}
		return nil
	})
}

// unlock opens dir's keyring with the passphrase in the file
// $STARFORTUNE_PASSPHRASE_FILE names (the tests'), making the keyring of a
// new data directory as `starfortune key init` would, at a low Argon2 cost.
func unlock(dir string) (keyring.Keys, error) {
	b, err := os.ReadFile(os.Getenv("STARFORTUNE_PASSPHRASE_FILE"))
	if err != nil {
		return keyring.Keys{}, fmt.Errorf("the tests' passphrase: %w", err)
	}
	pass := bytes.TrimSuffix(b, []byte("\n"))
	d := cli.DataDir(dir)
	if _, err := os.Stat(d.Keyring()); errors.Is(err, os.ErrNotExist) {
		keyring.PassphraseCost = keyring.Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}
		if err := fsync.MkdirAll(dir, 0o750); err != nil {
			return keyring.Keys{}, err
		}
		_, keys, err := keyring.CreatePassphrase(d.Keyring(), pass)
		return keys, err
	}
	return d.Unlock(pass)
}
