package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"starfortune/engine"
	"starfortune/present"
)

// The player accounts at the command line (SPEC §10): support staff open
// and complete accounts, review and change limits, record breaks, unlock
// cards, import the exclusion list, record identity checks and hand-pays,
// and export the register. Amounts in JSON are cents.

// attendantFlag is --attendant: who acts, their PIN checked (actorOf).
func attendantFlag(fs *flag.FlagSet) *string {
	return fs.String("attendant", "", "the attendant who acts, by `NAME` (their PIN asked first); without it: cli")
}

// who names the account a command works on: --card, or --player for a
// wallet from before accounts.
type who struct{ card, player *string }

func whoFlags(fs *flag.FlagSet) who {
	return who{fs.String("card", "", "the account's card `NUMBER`"), fs.String("player", "", "a wallet from before accounts, by its `NAME`")}
}

// player is the wallet the flags name.
func (w who) wallet(c *call) (string, error) {
	switch {
	case *w.card != "" && *w.player != "":
		return "", usageError{errors.New("give --card or --player, not both")}
	case *w.player != "":
		return *w.player, nil
	case *w.card == "":
		return "", usageError{errors.New("give --card NUMBER")}
	}
	card, err := engine.ParseCard(*w.card)
	if err != nil {
		return "", usageError{err}
	}
	a, err := c.svc.ByCard(c.ctx, card)
	return a.Player, err
}

// openFlags are the identity and limits of player open and complete.
type openFlags struct {
	holder, born, idType, idNumber *string
	limits                         map[engine.LimitKey]*string
	pinStdin                       *bool
	attendant                      *string
}

func declareOpen(fs *flag.FlagSet) openFlags {
	o := openFlags{
		holder:    fs.String("holder", "", "required: the holder's full `NAME`"),
		born:      fs.String("born", "", "required: date of birth, `YYYY-MM-DD` (or DD/MM/YYYY)"),
		idType:    fs.String("id-type", "", "required: identity document `TYPE` (CNI, PASSEPORT...)"),
		idNumber:  fs.String("id-number", "", "required: identity document `NUMBER`"),
		limits:    map[engine.LimitKey]*string{},
		pinStdin:  fs.Bool("pin-stdin", false, "read the card's PIN from standard input (else asked twice on the terminal)"),
		attendant: attendantFlag(fs),
	}
	for _, k := range engine.LimitKeys {
		help := "optional limit in `EUROS`"
		if k.Mandatory() {
			help = "required: limit in `EUROS`"
		}
		o.limits[k] = fs.String(k.String(), "", help)
	}
	return o
}

// request reads the flags into an opening request, the PIN included, and
// who acts.
func (o openFlags) request(c *call) (engine.OpenRequest, string, error) {
	born, err := engine.ParseBirthDate(*o.born, time.Now())
	if err != nil {
		return engine.OpenRequest{}, "", usageError{fmt.Errorf("--born: %w", err)}
	}
	req := engine.OpenRequest{Identity: engine.Identity{Holder: strings.TrimSpace(*o.holder), Born: born, DocType: strings.TrimSpace(*o.idType),
		DocNumber: strings.TrimSpace(*o.idNumber)}, Limits: engine.Limits{}}
	for k, v := range o.limits {
		if *v == "" {
			continue
		}
		amount, err := engine.ParseAmount(*v)
		if err != nil {
			return req, "", usageError{fmt.Errorf("--%s: %w", k, err)}
		}
		req.Limits[k] = amount
	}
	actor, err := actorOf(c, *o.attendant)
	if err != nil {
		return req, "", err
	}
	read := c.readPIN
	if req.PIN, err = read("card PIN: "); err != nil {
		return req, "", err
	}
	if !*o.pinStdin {
		again, err := read("card PIN again: ")
		if err != nil {
			return req, "", err
		}
		if again != req.PIN {
			return req, "", usageError{errors.New("the two PINs differ")}
		}
	}
	return req, actor, nil
}

func playerOpenFlags(fs *flag.FlagSet) func(*call) error {
	o := declareOpen(fs)
	return func(c *call) error {
		req, actor, err := o.request(c)
		if err != nil {
			return err
		}
		a, err := c.svc.Open(c.ctx, actor, req)
		if err != nil {
			return fmt.Errorf("open account: %w", err)
		}
		return showAccount(c, a)
	}
}

func playerCompleteFlags(fs *flag.FlagSet) func(*call) error {
	player := fs.String("player", "", "required: the former wallet's `NAME`")
	o := declareOpen(fs)
	return func(c *call) error {
		req, actor, err := o.request(c)
		if err != nil {
			return err
		}
		a, err := c.svc.Complete(c.ctx, actor, *player, req)
		if err != nil {
			return fmt.Errorf("complete %s: %w", *player, err)
		}
		return showAccount(c, a)
	}
}

func playerShowFlags(fs *flag.FlagSet) func(*call) error {
	w := whoFlags(fs)
	pin := fs.String("pin", "", "at a fleet's kiosk: the card's `PIN`, for scripts (else read from standard input)")
	attendant := attendantFlag(fs)
	return func(c *call) error {
		if c.svc.Fleet != nil && *w.card != "" {
			return showFleetAccount(c, cardLogin{w.card, pin}, *attendant)
		}
		player, err := w.wallet(c)
		if err != nil {
			return err
		}
		a, err := c.svc.Account(c.ctx, player)
		if err != nil {
			return err
		}
		return showAccount(c, a)
	}
}

type limitJSON struct {
	Limit       string `json:"limit"`
	Cents       int64  `json:"cents"`
	Pending     *int64 `json:"pending_cents,omitempty"`
	PendingFrom string `json:"pending_from,omitempty"`
}

type accountJSON struct {
	Player        string      `json:"player"`
	Card          string      `json:"card,omitempty"`
	Complete      bool        `json:"complete"`
	Holder        string      `json:"holder,omitempty"`
	Born          string      `json:"born,omitempty"`
	Document      string      `json:"document,omitempty"`
	Opened        string      `json:"opened,omitempty"`
	BalanceCents  int64       `json:"balance_cents"`
	SetAside      int64       `json:"set_aside_cents"`
	HeldCents     int64       `json:"held_cents"`
	Held          []string    `json:"held_tickets,omitempty"`
	Limits        []limitJSON `json:"limits"`
	BreakUntil    string      `json:"break_until,omitempty"`
	CardLocked    bool        `json:"card_locked"`
	SessionOpen   bool        `json:"session_open"`
	SessionStaked int64       `json:"session_staked_cents"`
	SessionWon    int64       `json:"session_won_cents"`
}

func accountView(a engine.Account, balance engine.Cents, now time.Time) accountJSON {
	j := accountJSON{Player: a.Player, Card: string(a.Card), Complete: a.Complete, Holder: a.Identity.Holder, BalanceCents: int64(balance),
		SetAside: int64(a.SetAside), HeldCents: int64(a.HeldTotal()), CardLocked: a.PINLocked, SessionOpen: a.Session.Open,
		SessionStaked: int64(a.Session.Staked), SessionWon: int64(a.Session.Won), Limits: []limitJSON{}}
	if a.Complete {
		j.Born, j.Document, j.Opened = a.Identity.Born.Format(time.DateOnly), a.Identity.Key(), a.Opened.Format(time.RFC3339)
	}
	for _, h := range a.Held {
		j.Held = append(j.Held, h.Ticket.String())
	}
	j.Limits, j.BreakUntil = accountTerms(a, now)
	return j
}

// accountTerms are an account's limits in force or pending at now, and
// the end of its break if one is in force ("indefinite", or a time), as
// the command line prints them: the lone kiosk's accounts' and a fleet's.
func accountTerms(a engine.Account, now time.Time) (limits []limitJSON, breakUntil string) {
	limits = []limitJSON{}
	for _, k := range engine.LimitKeys {
		v, ok := a.Limit(k, now)
		p, pending := a.PendingFor(k, now)
		if !ok && !pending {
			continue
		}
		l := limitJSON{Limit: k.String(), Cents: int64(v)}
		if pending {
			pc := int64(p.Amount)
			l.Pending, l.PendingFrom = &pc, p.Effective.Format(time.RFC3339)
		}
		limits = append(limits, l)
	}
	if a.Break.Active(now) {
		breakUntil = "indefinite"
		if !a.Break.Indefinite {
			breakUntil = a.Break.Until.Format(time.RFC3339)
		}
	}
	return limits, breakUntil
}

func showAccount(c *call, a engine.Account) error {
	bal, err := c.svc.Balance(c.ctx, a.Player)
	if err != nil {
		return err
	}
	now := time.Now()
	j := accountView(a, bal, now)
	if c.json {
		return json.NewEncoder(c.out).Encode(j)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	if !a.Complete {
		fmt.Fprintf(tw, "wallet\t%s (from before accounts: not completed; balance payable, no play or deposit until `player complete`)\n", a.Player)
	} else {
		fmt.Fprintf(tw, "card\t%s\nholder\t%s, born %s\ndocument\t%s\nopened\t%s\n", a.Card.Spaced(), j.Holder, j.Born, j.Document, fr.When(a.Opened))
	}
	printHoldings(tw, a, bal, "balance")
	for _, l := range j.Limits {
		line := fr.Money(engine.Cents(l.Cents))
		if l.Cents == 0 {
			line = "none"
		}
		k, _ := engine.ParseLimitKey(l.Limit)
		if p, ok := a.PendingFor(k, now); ok {
			to := fr.Money(p.Amount)
			if p.Amount == 0 {
				to = "removed"
			}
			line += fmt.Sprintf(", %s from %s", to, fr.When(p.Effective))
		}
		fmt.Fprintf(tw, "limit %s\t%s\n", l.Limit, line)
	}
	if j.BreakUntil != "" {
		fmt.Fprintf(tw, "break\tuntil %s\n", j.BreakUntil)
	}
	if a.PINLocked {
		fmt.Fprintf(tw, "card\tlocked after wrong PINs: starfortune player unlock-pin\n")
	}
	printSession(tw, a)
	return tw.Flush()
}

// printHoldings prints what the account holds at this kiosk: its balance
// (named so), set aside and held, and each prize held.
func printHoldings(w io.Writer, a engine.Account, bal engine.Cents, name string) {
	fmt.Fprintf(w, "%s\t%s (set aside %s, held for an attendant %s)\n", name, fr.Money(bal), fr.Money(a.SetAside), fr.Money(a.HeldTotal()))
	for _, h := range a.Held {
		checked := "identity not checked"
		if h.IdentityChecked {
			checked = "identity checked"
		}
		fmt.Fprintf(w, "held prize\t%s %s (%s)\n", h.Ticket, fr.Money(h.Prize), checked)
	}
}

// printSession prints the account's session at this kiosk, if one is open.
func printSession(w io.Writer, a engine.Account) {
	if a.Session.Open {
		fmt.Fprintf(w, "session\tsince %s, staked %s, won %s\n", fr.When(a.Session.Start), fr.Money(a.Session.Staked), fr.Money(a.Session.Won))
	}
}

// fleetAccountJSON is an account at a fleet's kiosk: as the central holds
// it, and what this kiosk holds of it (none if the player never logged in
// here).
type fleetAccountJSON struct {
	centralPlayerJSON
	Here *accountJSON `json:"here,omitempty"`
}

// showFleetAccount shows, at a fleet's kiosk, card's account as the
// central holds it, the player's PIN read as play reads it (its look-up
// recorded at the central under the attendant's name), then what this
// kiosk holds of it: its funds here, the prizes held here, its session.
func showFleetAccount(c *call, l cardLogin, attendant string) error {
	card, pin, err := l.read(c)
	if err != nil {
		return err
	}
	actor, err := actorOf(c, attendant)
	if err != nil {
		return err
	}
	f, err := c.svc.FleetAccount(c.ctx, actor, card, pin)
	if err != nil {
		return err
	}
	now := time.Now()
	j := fleetAccountJSON{centralPlayerJSON: centralPlayerView(f, now)}
	here, err := c.svc.Account(c.ctx, string(card))
	var bal engine.Cents
	switch {
	case err == nil:
		if bal, err = c.svc.Balance(c.ctx, here.Player); err != nil {
			return err
		}
		v := accountView(here, bal, now)
		j.Here = &v
	case !errors.Is(err, engine.ErrNoAccount):
		return err
	}
	if c.json {
		return json.NewEncoder(c.out).Encode(j)
	}
	if err := showCentralPlayer(c, f); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	if j.Here == nil {
		fmt.Fprintf(tw, "this kiosk\tnever logged in here\n")
	} else {
		printHoldings(tw, here, bal, "this kiosk")
		printSession(tw, here)
	}
	return tw.Flush()
}

func playerListRun(c *call) error {
	list, err := c.svc.ListAccounts(c.ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	var js []accountJSON
	for _, a := range list {
		bal, err := c.svc.Balance(c.ctx, a.Player)
		if err != nil {
			return err
		}
		js = append(js, accountView(a, bal, now))
	}
	if c.json {
		if js == nil {
			js = []accountJSON{}
		}
		return json.NewEncoder(c.out).Encode(js)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CARD\tWALLET\tHOLDER\tBALANCE\tSTATE")
	for _, j := range js {
		state := "ok"
		switch {
		case !j.Complete:
			state = "not completed"
		case j.BreakUntil != "":
			state = "break until " + j.BreakUntil
		case j.HeldCents > 0:
			state = "prize held"
		case j.CardLocked:
			state = "card locked"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", engine.Card(j.Card).Spaced(), j.Player, j.Holder, fr.Money(engine.Cents(j.BalanceCents)), state)
	}
	return tw.Flush()
}

func playerLimitsFlags(fs *flag.FlagSet) func(*call) error {
	w := whoFlags(fs)
	attendant := attendantFlag(fs)
	var sets []string
	fs.Func("set", "change a limit: `LIMIT=EUROS` (e.g. stake-week=50; 0 removes an optional one); repeatable", func(v string) error {
		sets = append(sets, v)
		return nil
	})
	return func(c *call) error {
		player, err := w.wallet(c)
		if err != nil {
			return err
		}
		actor := actorCLI
		if len(sets) > 0 {
			if actor, err = actorOf(c, *attendant); err != nil {
				return err
			}
		}
		for _, s := range sets {
			name, v, ok := strings.Cut(s, "=")
			k, err := engine.ParseLimitKey(name)
			if !ok || err != nil {
				return usageError{fmt.Errorf("--set %q: want LIMIT=EUROS (%v)", s, err)}
			}
			amount, err := limitAmount(v)
			if err != nil {
				return usageError{fmt.Errorf("--set %s: %w", name, err)}
			}
			ch, err := c.svc.SetLimit(c.ctx, actor, player, k, amount)
			if err != nil {
				return fmt.Errorf("limit %s: %w", k, err)
			}
			printLimitChange(c.stderr, ch)
		}
		a, err := c.svc.Account(c.ctx, player)
		if err != nil {
			return err
		}
		return showAccount(c, a)
	}
}

func playerExcludeFlags(fs *flag.FlagSet) func(*call) error {
	w := whoFlags(fs)
	length := fs.String("break", "", "required: `LENGTH` of the break: 24h, 7d, 30d, 3m, 6m, 12m or indefinite")
	attendant := attendantFlag(fs)
	return func(c *call) error {
		b, err := engine.ParseBreak(*length)
		if err != nil {
			return usageError{err}
		}
		player, err := w.wallet(c)
		if err != nil {
			return err
		}
		actor, err := actorOf(c, *attendant)
		if err != nil {
			return err
		}
		e, err := c.svc.TakeBreak(c.ctx, actor, player, b)
		if err != nil {
			return fmt.Errorf("break: %w", err)
		}
		if e.Indefinite {
			fmt.Fprintf(c.out, "%s: break with no end (it cannot be shortened)\n", player)
		} else {
			fmt.Fprintf(c.out, "%s: break until %s (it cannot be shortened)\n", player, fr.When(e.Until))
		}
		return nil
	}
}

func playerUnlockFlags(fs *flag.FlagSet) func(*call) error {
	w := whoFlags(fs)
	newPIN := fs.Bool("new-pin-stdin", false, "also set a new PIN, read from standard input")
	attendant := attendantFlag(fs)
	return func(c *call) error {
		player, err := w.wallet(c)
		if err != nil {
			return err
		}
		actor, err := actorOf(c, *attendant)
		if err != nil {
			return err
		}
		pin := ""
		if *newPIN {
			if pin, err = c.readPIN("new card PIN: "); err != nil {
				return err
			}
		}
		if _, err := c.svc.UnlockCard(c.ctx, actor, player, pin); err != nil {
			return fmt.Errorf("unlock card: %w", err)
		}
		fmt.Fprintf(c.out, "%s: card unlocked\n", player)
		return nil
	}
}

// heldPrize is what player identity and player handpay name: the
// account, the held prize's ticket, and who acts.
type heldPrize struct {
	w                 who
	ticket, attendant *string
}

func heldPrizeFlags(fs *flag.FlagSet) heldPrize {
	return heldPrize{whoFlags(fs), fs.String("ticket", "", "required: the held prize's `TICKET`"), attendantFlag(fs)}
}

// resolve reads the flags: the account's wallet, the ticket, the actor.
func (h heldPrize) resolve(c *call) (player string, t engine.Ticket, actor string, err error) {
	if t, err = engine.ParseTicket(*h.ticket); err != nil {
		return "", t, "", usageError{err}
	}
	if player, err = h.w.wallet(c); err != nil {
		return "", t, "", err
	}
	actor, err = actorOf(c, *h.attendant)
	return player, t, actor, err
}

func playerIdentityFlags(fs *flag.FlagSet) func(*call) error {
	h := heldPrizeFlags(fs)
	doc := fs.String("document", "", "required: the identity `DOCUMENT` seen (type and number)")
	return func(c *call) error {
		player, t, actor, err := h.resolve(c)
		if err != nil {
			return err
		}
		if _, err := c.svc.CheckIdentity(c.ctx, actor, player, t, *doc); err != nil {
			return fmt.Errorf("identity check: %w", err)
		}
		fmt.Fprintf(c.out, "%s: identity checked for the prize of %s\n", player, t)
		return nil
	}
}

func playerHandpayFlags(fs *flag.FlagSet) func(*call) error {
	h := heldPrizeFlags(fs)
	method := fs.String("method", "", "required: how it is paid: `METHOD` (virement, cheque...)")
	ref := fs.String("reference", "", "the transfer's or cheque's `REFERENCE`")
	return func(c *call) error {
		player, t, actor, err := h.resolve(c)
		if err != nil {
			return err
		}
		l, err := c.svc.PayHeld(c.ctx, actor, player, t, *method, *ref)
		if err != nil {
			return fmt.Errorf("hand-pay: %w", err)
		}
		fmt.Fprintf(c.out, "%s: prize of %s paid, %s by %s; balance %s\n", player, t, fr.Money(l.Debit), *method, fr.Money(l.Balance))
		return nil
	}
}

func exclusionsImportFlags(fs *flag.FlagSet) func(*call) error {
	attendant := attendantFlag(fs)
	return func(c *call) error { return exclusionsImport(c, *attendant) }
}

func exclusionsImport(c *call, attendant string) error {
	b, err := os.ReadFile(c.args[0])
	if err != nil {
		return err
	}
	keys, err := engine.ParseExclusionList(string(b))
	if err != nil {
		return err
	}
	actor, err := actorOf(c, attendant)
	if err != nil {
		return err
	}
	added, closed, err := c.svc.ImportExclusions(c.ctx, actor, keys)
	if err != nil {
		return fmt.Errorf("exclusion list (%d added before the error; run it again to go on): %w", added, err)
	}
	fmt.Fprintf(c.out, "exclusion list: %d identities read, %d new; %d accounts closed\n", len(keys), added, len(closed))
	return nil
}

func registerFlags(fs *flag.FlagSet) func(*call) error {
	asCSV := fs.Bool("csv", false, "CSV, for the register's archive")
	return func(c *call) error {
		reg, err := c.svc.Register(c.ctx)
		if err != nil {
			return err
		}
		type line struct {
			Seq      uint64 `json:"seq"`
			Time     string `json:"time"`
			Kind     string `json:"kind"`
			Player   string `json:"player"`
			Holder   string `json:"holder"`
			Document string `json:"document"`
			Ticket   string `json:"ticket"`
			Cents    int64  `json:"cents"`
			Detail   string `json:"detail"`
			Actor    string `json:"actor"`
		}
		lines := make([]line, 0, len(reg))
		for _, e := range reg {
			r := e.Record
			lines = append(lines, line{r.Seq, r.Time.Format(time.RFC3339), r.Kind.String(), r.Player, e.Holder, e.Document, r.Ticket.String(), int64(r.Amount), r.Text, r.Actor})
		}
		switch {
		case c.json:
			return json.NewEncoder(c.out).Encode(lines)
		case *asCSV:
			return present.RegisterCSV(c.out, reg)
		}
		tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TIME\tKIND\tHOLDER\tTICKET\tAMOUNT\tDETAIL\tBY")
		for _, l := range lines {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Time, l.Kind, l.Holder, l.Ticket, fr.Money(engine.Cents(l.Cents)), l.Detail, l.Actor)
		}
		return tw.Flush()
	}
}

// cardLogin is how play and wallet credit prove a card: its PIN from --pin
// (scripts, tests) or standard input.
type cardLogin struct{ card, pin *string }

func cardFlags(fs *flag.FlagSet) cardLogin {
	return cardLogin{fs.String("card", "", "play or credit the account of card `NUMBER` (its PIN on standard input, or --pin)"),
		fs.String("pin", "", "the card's `PIN`, for scripts (else read from standard input)")}
}

// given reports whether --card was given.
func (l cardLogin) given() bool { return *l.card != "" }

// read parses the card and reads its PIN.
func (l cardLogin) read(c *call) (engine.Card, string, error) {
	card, err := engine.ParseCard(*l.card)
	if err != nil {
		return "", "", usageError{err}
	}
	pin := *l.pin
	if pin == "" {
		if pin, err = c.readPIN("card PIN: "); err != nil {
			return "", "", err
		}
	}
	return card, pin, nil
}

// limitAmount reads a limit's amount in euros as staff type it; "0"
// removes the limit.
func limitAmount(v string) (engine.Cents, error) {
	if strings.TrimSpace(v) == "0" {
		return 0, nil
	}
	return engine.ParseAmount(v)
}

// printLimitChange says when a limit change applies: now (a decrease) or
// after the cooling-off.
func printLimitChange(w io.Writer, ch engine.PendingLimit) {
	if !ch.Effective.After(ch.Requested) {
		fmt.Fprintf(w, "%s: %s from now\n", ch.Key, fr.Money(ch.Amount))
	} else {
		fmt.Fprintf(w, "%s: %s from %s (cooling-off)\n", ch.Key, fr.Money(ch.Amount), fr.When(ch.Effective))
	}
}
