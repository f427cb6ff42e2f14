package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"starfortune/engine"
	"starfortune/present"
)

// saleJSON is one unit as the command line prints it; money in integer cents.
type saleJSON struct {
	Ticket        string     `json:"ticket"`
	Player        string     `json:"player"`
	StakeCents    int64      `json:"stake_cents"`
	PrizeCents    int64      `json:"prize_cents"`
	Drops         []dropJSON `json:"drops"`
	BalanceBefore int64      `json:"balance_before_cents"`
	BalanceAfter  int64      `json:"balance_after_cents"`
	Block         string     `json:"block"`
	Index         uint32     `json:"index"`
	Time          string     `json:"time"`
	Revealed      bool       `json:"revealed"`
}

type dropJSON struct {
	Slot       int    `json:"slot"` // 0-2, -1 while the puck is not chosen
	Kind       string `json:"kind"` // "spot" or "bonus"
	Index      int    `json:"index"`
	ValueCents int64  `json:"value_cents"`
}

func toJSON(s engine.Sale) saleJSON {
	j := saleJSON{Ticket: s.Ticket.String(), Player: s.Player, StakeCents: int64(s.Stake()), PrizeCents: int64(s.Prize()),
		BalanceBefore: int64(s.BalanceBefore), BalanceAfter: int64(s.BalanceAfter), Block: s.Ticket.Block.String(),
		Index: s.Ticket.Index, Time: s.Time.Format(time.RFC3339), Revealed: s.Done()}
	for i, d := range s.Unit.Drops {
		kind := "spot"
		if d.Dest.Bonus {
			kind = "bonus"
		}
		j.Drops = append(j.Drops, dropJSON{Slot: s.Reveal.Slots[i], Kind: kind, Index: d.Dest.Index, ValueCents: int64(d.Value(s.Stake()))})
	}
	return j
}

// describeDrop says in French what a drop landed on, as staff read it aloud.
func describeDrop(d engine.Drop, stake engine.Cents) string {
	if d.Dest.Bonus {
		return fmt.Sprintf("BONUS %d → %s", d.Dest.Index+1, fr.Money(d.Value(stake)))
	}
	return fmt.Sprintf("case %d → %s", d.Dest.Index+1, fr.Money(d.Value(stake)))
}

// printSales prints a batch of sales in one write: the tab writer writes
// cell by cell, a system call each on an unbuffered standard output (a
// whole block played from the command line spent a third of its time
// there).
func printSales(out io.Writer, sales []engine.Sale, asJSON bool) error {
	bw := bufio.NewWriter(out)
	if asJSON {
		enc := json.NewEncoder(bw)
		for _, s := range sales {
			if err := enc.Encode(toJSON(s)); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	for _, s := range sales {
		slots := "-"
		if s.Reveal.Slots[0] != engine.NoSlot {
			slots = fmt.Sprint(s.Reveal.Slots[0] + 1)
			if s.Reveal.Slots[1] != engine.NoSlot {
				slots += fmt.Sprint("+", s.Reveal.Slots[1]+1)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\tmise %s\tgain %s\t%s → %s\tpalets %s\t%s ; %s\n", fr.When(s.Time),
			s.Ticket, s.Player, fr.Money(s.Stake()), fr.Money(s.Prize()), fr.Money(s.BalanceBefore), fr.Money(s.BalanceAfter), slots,
			describeDrop(s.Unit.Drops[0], s.Stake()), describeDrop(s.Unit.Drops[1], s.Stake()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

func playFlags(fs *flag.FlagSet) func(*call) error {
	stakeArg := fs.String("stake", "", "required: the stake in `EUROS`: 0.5 (or 0,50), 1 or 2")
	player := fs.String("player", engine.DemoPlayer, "player `ID`: the demo wallet (a real-money account plays with --card)")
	login := cardFlags(fs)
	n := fs.Int("n", 1, "`N` units to play")
	batch := fs.Int("batch", 1, fmt.Sprintf("`K` units per durable transaction (1 to %d)", engine.MaxBatch))
	return func(c *call) error { return play(c, *stakeArg, *player, login, *n, *batch) }
}

// play plays n units for player, or with --card in a session of the card's
// account, opened with its PIN and closed at the end.
func play(c *call, stakeArg, player string, login cardLogin, n, batch int) error {
	ctx, svc := c.ctx, c.svc
	stake, err := engine.ParseStake(stakeArg)
	if err != nil {
		return usageError{err}
	}
	if n < 1 || batch < 1 || batch > engine.MaxBatch {
		return usageError{fmt.Errorf("--n must be at least 1 and --batch 1 to %d", engine.MaxBatch)}
	}
	if login.given() {
		card, pin, err := login.read(c)
		if err != nil {
			return err
		}
		a, err := svc.OpenSession(ctx, card, pin)
		if err != nil {
			return fmt.Errorf("card %s: %w", card.Spaced(), err)
		}
		player = a.Player
		defer svc.CloseSession(context.WithoutCancel(ctx), player, actorCLI)
	}
	// The pucks are picked at random: the outcome never depends on them.
	picks := func(int) [2]int { return [2]int{rand.IntN(engine.NumSlots), rand.IntN(engine.NumSlots)} }
	for sold := 0; sold < n; {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted after %d of %d units (each printed unit is recorded)", sold, n)
		}
		sales, err := svc.Sell(ctx, engine.SellRequest{Player: player, Stake: stake, Count: min(batch, n-sold), Picks: picks, Actor: actorCLI})
		if err != nil {
			return fmt.Errorf("after %d of %d units: %w", sold, n, err)
		}
		if err := printSales(c.out, sales, c.json); err != nil {
			return err
		}
		sold += len(sales)
	}
	return nil
}

func historyFlags(fs *flag.FlagSet) func(*call) error {
	player := fs.String("player", engine.DemoPlayer, "player `ID`")
	last := fs.Int("last", 10, "the last `N` units, newest first")
	asCSV := fs.Bool("csv", false, "CSV with a header line, amounts in euros")
	return func(c *call) error { return history(c, *player, *last, *asCSV) }
}

func history(c *call, player string, last int, asCSV bool) error {
	if last < 1 {
		return usageError{fmt.Errorf("--last must be at least 1")}
	}
	sales, _, err := c.svc.History(c.ctx, player, 0, last)
	if err != nil {
		return err
	}
	if asCSV {
		return present.HistoryCSV(c.out, sales)
	}
	if len(sales) == 0 && !c.json {
		fmt.Fprintf(c.out, "%s has played no unit yet\n", player)
	}
	return printSales(c.out, sales, c.json)
}

var showFlags = noFlags(show)

func show(c *call) error {
	out := c.out
	t, err := engine.ParseTicket(c.args[0])
	if err != nil {
		return err
	}
	sale, err := c.svc.Lookup(c.ctx, t)
	if err != nil {
		return fmt.Errorf("ticket %s: %w", t, err)
	}
	if c.json {
		return printSales(out, []engine.Sale{sale}, true)
	}
	state := "déroulement terminé"
	if !sale.Done() {
		state = "déroulement non terminé (le résultat enregistré fait foi)"
	}
	if sale.SoldBy != "" { // found by the central: another kiosk's unit
		state = "vendu par le kiosque " + sale.SoldBy
	}
	for _, line := range [][2]string{
		{"Ticket", sale.Ticket.String()},
		{"Joueur", sale.Player},
		{"Date", fr.When(sale.Time)},
		{"Mise", fr.Money(sale.Stake())},
		{"Gain", fr.Money(sale.Prize())},
		{"Palet 1", dropLine(sale, 0)},
		{"Palet 2", dropLine(sale, 1)},
		{"Disponibilités", fmt.Sprintf("%s → %s", fr.Money(sale.BalanceBefore), fr.Money(sale.BalanceAfter))},
		{"État", state},
	} {
		if line[0] == "Disponibilités" && sale.SoldBy != "" {
			continue // the balances are the selling kiosk's
		}
		fmt.Fprintf(out, "%-16s%s\n", line[0], line[1])
	}
	return nil
}

func dropLine(s engine.Sale, i int) string {
	if s.SoldBy != "" { // the central keeps the outcome, not the pucks chosen
		return describeDrop(s.Unit.Drops[i], s.Stake())
	}
	slot := "non choisi"
	if s.Reveal.Slots[i] != engine.NoSlot {
		slot = fmt.Sprintf("fente %d", s.Reveal.Slots[i]+1)
	}
	return fmt.Sprintf("%s, %s", slot, describeDrop(s.Unit.Drops[i], s.Stake()))
}

func blocksRun(c *call) error {
	out, asJSON := c.out, c.json
	blocks, err := c.svc.Blocks(c.ctx)
	if err != nil {
		return err
	}
	type blockJSON struct {
		ID         string `json:"id"`
		StakeCents int64  `json:"stake_cents"`
		Size       uint32 `json:"size"`
		Served     uint32 `json:"served"`
		Commitment string `json:"commitment"`
		Seed       string `json:"seed"`
	}
	enc := json.NewEncoder(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintf(tw, "BLOC\tMISE\tVENDUES\tRESTANTES\tENGAGEMENT (SHA-256)\tGRAINE\n")
	}
	for _, b := range blocks {
		seed := ""
		if b.Exhausted() {
			seed = fmt.Sprintf("%x", b.Seed)
		}
		if asJSON {
			if err := enc.Encode(blockJSON{b.Ref.String(), int64(b.Ref.Stake), b.Size, b.Cursor.Served, b.Commitment.String(), seed}); err != nil {
				return err
			}
			continue
		}
		if seed == "" {
			seed = "secrète jusqu'à épuisement"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", b.Ref, fr.Money(b.Ref.Stake), b.Cursor.Served, b.Size-b.Cursor.Served, b.Commitment, seed)
	}
	return tw.Flush()
}

// walletFlags is wallet show (action ""), credit or payout.
func walletFlags(action string) func(*flag.FlagSet) func(*call) error {
	return func(fs *flag.FlagSet) func(*call) error {
		player := fs.String("player", engine.DemoPlayer, "player `ID` (the demo wallet, a wallet from before accounts)")
		login := cardFlags(fs)
		var amountArg *string
		if action != "" {
			amountArg = fs.String("amount", "", "required: the amount in `EUROS`, e.g. 20 or 12,50")
		}
		return func(c *call) error { return wallet(c, action, *player, login, amountArg) }
	}
}

// wallet shows, credits or pays out a wallet; with --card, the account's
// (a credit proves the card with its PIN).
func wallet(c *call, action, player string, login cardLogin, amountArg *string) error {
	ctx, svc, out := c.ctx, c.svc, c.out
	if login.given() {
		card, err := engine.ParseCard(*login.card)
		if err != nil {
			return usageError{err}
		}
		var a engine.Account
		if action == "credit" {
			var pin string
			if card, pin, err = login.read(c); err == nil {
				a, err = svc.Authenticate(ctx, card, pin)
			}
			if err == nil { // a fleet's kiosk opened a session for the deposit's lease
				defer svc.CloseSession(context.WithoutCancel(ctx), a.Player, actorCLI)
			}
		} else {
			a, err = svc.ByCard(ctx, card)
		}
		if err != nil {
			return fmt.Errorf("card %s: %w", card.Spaced(), err)
		}
		player = a.Player
	}
	if action != "" {
		amount, err := engine.ParseAmount(*amountArg)
		if err != nil {
			return usageError{fmt.Errorf("--amount: %w", err)}
		}
		move := svc.Credit
		if action == "payout" {
			move = svc.Payout
		}
		if _, err := move(ctx, player, amount, actorCLI); err != nil {
			return fmt.Errorf("%s of %s for %s: %w", action, amount, player, err)
		}
	}
	w, err := svc.Wallet(ctx, player)
	if err != nil {
		return err
	}
	if c.json {
		return json.NewEncoder(out).Encode(struct {
			Player       string `json:"player"`
			BalanceCents int64  `json:"balance_cents"`
		}{w.Player, int64(w.Balance)})
	}
	_, err = fmt.Fprintf(out, "%s : disponibilités %s\n", w.Player, fr.Money(w.Balance))
	return err
}

func auditRun(c *call) error { return audit(c.ctx, c.svc, c.json, c.out) }

// pinNotice is why the operator PIN in force must be changed, or "".
func pinNotice(weak *engine.PINRuleError) string {
	if weak == nil {
		return ""
	}
	return weak.Reason()
}

func audit(ctx context.Context, svc *engine.Service, asJSON bool, out io.Writer) error {
	rep, err := svc.Audit(ctx, nil)
	if err != nil {
		return err
	}
	if asJSON {
		findings := rep.Findings
		if findings == nil {
			findings = []string{}
		}
		if err := json.NewEncoder(out).Encode(struct {
			OK          bool                `json:"ok"`
			Blocks      int                 `json:"blocks"`
			Records     int                 `json:"records"`
			Wallets     int                 `json:"wallets"`
			Findings    []string            `json:"findings"`
			JournalHead string              `json:"journal_head"`
			Unanchored  []operatorEventJSON `json:"unanchored_recoveries"`
			PINNotice   string              `json:"operator_pin_notice,omitempty"`
		}{rep.OK(), rep.Blocks, rep.Records, rep.Wallets, findings, rep.Head.String(), eventsJSON(rep.Unanchored), pinNotice(rep.WeakPIN)}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "audit: %d blocks, %d history records, %d wallets checked\n", rep.Blocks, rep.Records, rep.Wallets)
		for _, f := range rep.Findings {
			fmt.Fprintf(out, "FINDING: %s\n", f)
		}
		if rep.WeakPIN != nil {
			fmt.Fprintf(out, "NOTICE: operator PIN: %s: change it with starfortune operator set-pin\n", pinNotice(rep.WeakPIN))
		}
		printAnchor(out, rep.Head, rep.Unanchored)
	}
	if !rep.OK() {
		return fmt.Errorf("audit found %d problems", len(rep.Findings))
	}
	if !asJSON {
		fmt.Fprintln(out, "audit OK")
	}
	return nil
}
