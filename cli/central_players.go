package cli

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"starfortune/central"
	"starfortune/engine"
)

// The players' accounts of a fleet at the central's command line (`central
// players`, `central exclusions import`, `central register`): the lone
// kiosk's `player` commands, with their words, for the accounts every
// kiosk of the fleet shares. Amounts in JSON are cents.

// centralActorUsage is --attendant's help on the central: it keeps no
// attendant's PIN, its owner's connection is the authority.
const centralActorUsage = "the staff member who acts, by `NAME`, as the player log records it; without it: cli"

// centralActor is who acts: the name --attendant gave, or "cli".
func centralActor(attendant string) string {
	if strings.TrimSpace(attendant) == "" {
		return actorCLI
	}
	return strings.TrimSpace(attendant)
}

// centralAttendantFlag is --attendant on a central command.
func centralAttendantFlag(fs *flag.FlagSet) *string {
	return fs.String("attendant", "", centralActorUsage)
}

// cardArg reads the card of the command's first argument.
func cardArg(c *call) (engine.Card, error) {
	card, err := engine.ParseCard(c.args[0])
	if err != nil {
		return "", usageError{err}
	}
	return card, nil
}

func centralPlayerOpenFlags(fs *flag.FlagSet) func(*call) error {
	o := declareOpen(fs)
	fs.Lookup("attendant").Usage = centralActorUsage
	return func(c *call) error {
		// The request reads the identity, the limits and the PIN as
		// `player open` does; it would check --attendant's PIN against
		// the kiosk's attendants, which the central has none of: the
		// name is taken aside first.
		actor := centralActor(*o.attendant)
		*o.attendant = ""
		req, _, err := o.request(c)
		if err != nil {
			return err
		}
		a, err := c.admin.OpenPlayer(c.ctx, actor, req.Identity, req.Limits, req.PIN)
		if err != nil {
			return fmt.Errorf("open account: %w", err)
		}
		p, err := c.admin.Player(c.ctx, a.Card)
		if err != nil {
			return err
		}
		return showCentralPlayer(c, p)
	}
}

func centralPlayerShow(c *call) error {
	card, err := cardArg(c)
	if err != nil {
		return err
	}
	p, err := c.admin.Player(c.ctx, card)
	if err != nil {
		return err
	}
	return showCentralPlayer(c, p)
}

// centralPlayerJSON is a fleet account as `central players show --json`
// and `list --json` print it.
type centralPlayerJSON struct {
	Card       string             `json:"card"`
	Holder     string             `json:"holder"`
	Born       string             `json:"born"`
	Document   string             `json:"document"`
	Opened     string             `json:"opened"`
	OpenedBy   string             `json:"opened_by"`
	Complete   bool               `json:"complete"`
	CardLocked bool               `json:"card_locked"`
	Listed     bool               `json:"listed"`
	Limits     []limitJSON        `json:"limits"`
	BreakUntil string             `json:"break_until,omitempty"`
	Leases     []centralLeaseJSON `json:"leases"`
	Usage      []centralUsageJSON `json:"usage,omitempty"` // show only
	Funds      []centralFundsJSON `json:"funds,omitempty"` // show only
}

// centralFundsJSON is what the player's wallet holds at one kiosk, from
// the movements it synced.
type centralFundsJSON struct {
	Kiosk        string `json:"kiosk"`
	BalanceCents int64  `json:"balance_cents"`
}

// centralLeaseJSON is an open lease of an account.
type centralLeaseJSON struct {
	ID             int64  `json:"id"`
	Kiosk          string `json:"kiosk"`
	Granted        string `json:"granted"`
	Expires        string `json:"expires"`
	Revoked        string `json:"revoked,omitempty"`
	DepositCents   *int64 `json:"deposit_room_cents,omitempty"`
	StakeCents     *int64 `json:"stake_room_cents,omitempty"`
	LossCents      *int64 `json:"loss_room_cents,omitempty"`
	DepositedCents int64  `json:"deposited_cents"`
	StakedCents    int64  `json:"staked_cents"`
}

// centralUsageJSON is what a limit in force counts now over the fleet.
type centralUsageJSON struct {
	Limit            string `json:"limit"`
	MaxCents         int64  `json:"max_cents"`
	UsedCents        int64  `json:"used_cents"`
	OutstandingCents int64  `json:"outstanding_cents"` // what the open leases may still use
}

func centralPlayerView(p engine.FleetAccount, now time.Time) centralPlayerJSON {
	a := p.Account
	j := centralPlayerJSON{Card: string(a.Card), Holder: a.Identity.Holder, Born: a.Identity.Born.Format(time.DateOnly), Document: a.Identity.Key(),
		Opened: a.Opened.Format(time.RFC3339), OpenedBy: a.OpenedBy, Complete: a.Complete, CardLocked: a.PINLocked, Listed: p.Listed,
		Limits: []limitJSON{}, Leases: []centralLeaseJSON{}}
	j.Limits, j.BreakUntil = accountTerms(a, now)
	for _, l := range p.Leases {
		lj := centralLeaseJSON{ID: l.Lease.ID, Kiosk: l.Kiosk, Granted: l.Lease.Granted.Format(time.RFC3339), Expires: l.Expires.Format(time.RFC3339),
			Revoked: l.Revoked, DepositedCents: int64(l.Deposited), StakedCents: int64(l.Staked)}
		for _, r := range l.Lease.Rooms {
			v := int64(r.Room)
			switch r.Kind {
			case engine.LimitDeposit:
				lj.DepositCents = &v
			case engine.LimitStake:
				lj.StakeCents = &v
			case engine.LimitLoss:
				lj.LossCents = &v
			}
		}
		j.Leases = append(j.Leases, lj)
	}
	for _, u := range p.Usage {
		j.Usage = append(j.Usage, centralUsageJSON{Limit: u.Limit.String(), MaxCents: int64(u.Max), UsedCents: int64(u.Used), OutstandingCents: int64(u.Outstanding)})
	}
	for _, f := range p.Funds {
		j.Funds = append(j.Funds, centralFundsJSON{Kiosk: f.Kiosk, BalanceCents: int64(f.Balance)})
	}
	return j
}

func showCentralPlayer(c *call, p engine.FleetAccount) error {
	now := time.Now()
	j := centralPlayerView(p, now)
	if c.json {
		return json.NewEncoder(c.out).Encode(j)
	}
	a := p.Account
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "card\t%s\nholder\t%s, born %s\ndocument\t%s\nopened\t%s by %s\n", a.Card.Spaced(), j.Holder, j.Born, j.Document,
		fr.When(a.Opened), a.OpenedBy)
	for _, l := range j.Limits {
		k, _ := engine.ParseLimitKey(l.Limit)
		line := fr.Money(engine.Cents(l.Cents))
		if l.Cents == 0 {
			line = "none"
		}
		for _, u := range p.Usage {
			if u.Limit == k {
				line += fmt.Sprintf(", used %s, in open leases %s", fr.Money(u.Used), fr.Money(u.Outstanding))
			}
		}
		if pend, ok := a.PendingFor(k, now); ok {
			to := fr.Money(pend.Amount)
			if pend.Amount == 0 {
				to = "removed"
			}
			line += fmt.Sprintf("; %s from %s", to, fr.When(pend.Effective))
		}
		fmt.Fprintf(tw, "limit %s\t%s\n", l.Limit, line)
	}
	if j.BreakUntil != "" {
		fmt.Fprintf(tw, "break\tuntil %s\n", j.BreakUntil)
	}
	if a.PINLocked {
		fmt.Fprintf(tw, "card\tlocked after wrong PINs: starfortune central players unlock-pin\n")
	}
	if p.Listed {
		fmt.Fprintf(tw, "listed\tthe holder is on the exclusion list\n")
	}
	for _, l := range p.Leases {
		var rooms []string
		for _, r := range l.Lease.Rooms {
			rooms = append(rooms, fmt.Sprintf("%s %s", map[engine.LimitKind]string{engine.LimitDeposit: "deposits", engine.LimitStake: "stakes",
				engine.LimitLoss: "losses"}[r.Kind], fr.Money(r.Room)))
		}
		revoked := ""
		if l.Revoked != "" {
			revoked = ", revoked: " + l.Revoked
		}
		fmt.Fprintf(tw, "lease %d\tkiosk %s until %s: %s; deposited %s, staked %s%s\n", l.Lease.ID, l.Kiosk, fr.When(l.Expires),
			strings.Join(rooms, ", "), fr.Money(l.Deposited), fr.Money(l.Staked), revoked)
	}
	for _, f := range p.Funds {
		fmt.Fprintf(tw, "funds	%s at kiosk %s (synced)\n", fr.Money(f.Balance), f.Kiosk)
	}
	return tw.Flush()
}

func centralPlayerList(c *call) error {
	list, err := c.admin.Players(c.ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	js := make([]centralPlayerJSON, 0, len(list))
	for _, p := range list {
		js = append(js, centralPlayerView(p, now))
	}
	if c.json {
		return json.NewEncoder(c.out).Encode(js)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CARD\tHOLDER\tOPEN LEASES\tSTATE")
	for _, j := range js {
		state := "ok"
		switch {
		case j.Listed:
			state = "listed"
		case j.BreakUntil != "":
			state = "break until " + j.BreakUntil
		case j.CardLocked:
			state = "card locked"
		case !j.Complete:
			state = "not completed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", engine.Card(j.Card).Spaced(), j.Holder, len(j.Leases), state)
	}
	return tw.Flush()
}

func centralPlayerLimitsFlags(fs *flag.FlagSet) func(*call) error {
	attendant := centralAttendantFlag(fs)
	return func(c *call) error {
		card, err := cardArg(c)
		if err != nil {
			return err
		}
		k, err := engine.ParseLimitKey(c.args[1])
		if err != nil {
			return usageError{err}
		}
		amount, err := limitAmount(c.args[2])
		if err != nil {
			return usageError{fmt.Errorf("%s: %w", k, err)}
		}
		ch, err := c.admin.SetPlayerLimit(c.ctx, centralActor(*attendant), card, k, amount)
		if err != nil {
			return err
		}
		printLimitChange(c.stderr, ch)
		p, err := c.admin.Player(c.ctx, card)
		if err != nil {
			return err
		}
		return showCentralPlayer(c, p)
	}
}

func centralPlayerExcludeFlags(fs *flag.FlagSet) func(*call) error {
	attendant := centralAttendantFlag(fs)
	return func(c *call) error {
		card, err := cardArg(c)
		if err != nil {
			return err
		}
		b, err := engine.ParseBreak(c.args[1])
		if err != nil {
			return usageError{err}
		}
		e, err := c.admin.PlayerBreak(c.ctx, centralActor(*attendant), card, b)
		if err != nil {
			return fmt.Errorf("break: %w", err)
		}
		if e.Indefinite {
			fmt.Fprintf(c.out, "%s: break with no end at every kiosk (it cannot be shortened)\n", card.Spaced())
		} else {
			fmt.Fprintf(c.out, "%s: break until %s at every kiosk (it cannot be shortened)\n", card.Spaced(), fr.When(e.Until))
		}
		return nil
	}
}

func centralPlayerUnlockFlags(fs *flag.FlagSet) func(*call) error {
	newPIN := fs.Bool("new-pin-stdin", false, "also set a new PIN, read from standard input")
	attendant := centralAttendantFlag(fs)
	return func(c *call) error {
		card, err := cardArg(c)
		if err != nil {
			return err
		}
		pin := ""
		if *newPIN {
			if pin, err = c.readPIN("new card PIN: "); err != nil {
				return err
			}
		}
		if err := c.admin.UnlockPlayerCard(c.ctx, centralActor(*attendant), card, pin); err != nil {
			return fmt.Errorf("unlock card: %w", err)
		}
		fmt.Fprintf(c.out, "%s: card unlocked\n", card.Spaced())
		return nil
	}
}

func centralExclusionsImportFlags(fs *flag.FlagSet) func(*call) error {
	attendant := centralAttendantFlag(fs)
	return func(c *call) error {
		b, err := os.ReadFile(c.args[0])
		if err != nil {
			return err
		}
		keys, err := engine.ParseExclusionList(string(b))
		if err != nil {
			return err
		}
		added, accounts, err := c.admin.ImportExclusions(c.ctx, centralActor(*attendant), keys)
		if err != nil {
			return fmt.Errorf("exclusion list (%d added before the error; run it again to go on): %w", added, err)
		}
		fmt.Fprintf(c.out, "exclusion list: %d identities read, %d new; %d accounts closed at every kiosk\n", len(keys), added, len(accounts))
		return nil
	}
}

func centralRegisterFlags(fs *flag.FlagSet) func(*call) error {
	asCSV := fs.Bool("csv", false, "CSV, for the register's archive")
	minimum := fs.String("min", engine.DefaultProtection().PayoutThreshold.Euros(), "the smallest prize listed, in `EUROS`")
	return func(c *call) error {
		if c.json && *asCSV {
			return usageError{errors.New("give --csv or --json, not both")}
		}
		least, err := engine.ParseAmount(*minimum)
		if err != nil {
			return usageError{fmt.Errorf("--min: %w", err)}
		}
		reg, err := c.admin.Register(c.ctx, least)
		if err != nil {
			return err
		}
		switch {
		case c.json:
			return json.NewEncoder(c.out).Encode(reg)
		case *asCSV:
			w := csv.NewWriter(c.out)
			if err := w.Write([]string{"time", "kiosk", "player", "holder", "document", "ticket", "stake_eur", "prize_eur",
				"hand_paid_at", "document_seen", "checked_by", "paid_by", "method", "reference"}); err != nil {
				return err
			}
			for _, e := range reg {
				if err := w.Write(append([]string{e.Time.UTC().Format(time.RFC3339), e.Kiosk, e.Player, e.Holder, e.Document, e.Ticket,
					e.StakeCents.Euros(), e.PrizeCents.Euros()}, handPaid(e.HandPay, "", func(t time.Time) string { return t.UTC().Format(time.RFC3339) })...)); err != nil {
					return err
				}
			}
			w.Flush()
			return w.Error()
		}
		tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TIME\tKIOSK\tHOLDER\tCARD\tTICKET\tPRIZE\tPAID BY HAND\tDOCUMENT SEEN\tCHECKED BY\tPAID BY\tMETHOD\tREFERENCE")
		for _, e := range reg {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", fr.When(e.Time), e.Kiosk, e.Holder, engine.Card(e.Player).Spaced(), e.Ticket, fr.Money(e.PrizeCents),
				strings.Join(handPaid(e.HandPay, "-", fr.When), "\t"))
		}
		return tw.Flush()
	}
}

// handPaid is a register line's hand pay, column by column: when (as
// when writes it), the document seen, who checked it, who paid, the
// method and the reference; none, each column, while it was not paid by
// hand.
func handPaid(h *central.HandPaid, none string, when func(time.Time) string) []string {
	if h == nil {
		return []string{none, none, none, none, none, none}
	}
	return []string{when(h.Time), h.Document, h.CheckedBy, h.PaidBy, h.Method, h.Reference}
}
