package cli

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"starfortune/engine"
	"starfortune/present"
)

// actorCLI names support staff on the command line in the ledger and the
// operator log.
const actorCLI = "cli"

// blockReportJSON is a block of `report --json`: the closing figures only
// for a sold-out block (absent while it sells).
func blockReportJSON(b engine.BlockStatus) any {
	type closing struct {
		PaidCents   int64   `json:"paid_cents"`
		PayoutRatio float64 `json:"payout_ratio"`
		Tally       []int   `json:"tally"` // units per line of the prize table, losing units last
		Seed        string  `json:"seed"`
	}
	j := struct {
		Block      string   `json:"block"`
		StakeCents int64    `json:"stake_cents"`
		Size       uint32   `json:"size"`
		Served     uint32   `json:"served"`
		Left       uint32   `json:"left"`
		SalesCents int64    `json:"sales_cents"`
		TableRatio float64  `json:"table_ratio"`
		Commitment string   `json:"commitment"`
		Open       bool     `json:"open"`
		Closing    *closing `json:"closing,omitempty"`
	}{b.Ref.String(), int64(b.Ref.Stake), b.Size, b.Served, b.Left, int64(b.Sales), engine.TablePayoutRatio(), b.Commitment.String(), b.Open, nil}
	if b.Exhausted() {
		j.Closing = &closing{int64(b.Paid), b.Ratio(), b.Tally[:], hex.EncodeToString(b.Seed[:])}
	}
	return j
}

// newPIN reads a new PIN twice (terminal, or two lines of standard input)
// and checks it against the rule.
func newPIN(c *call, whose string) (string, error) {
	read := c.readPIN
	pin, err := read(fmt.Sprintf("Nouveau code PIN %s (%d à %d chiffres) : ", whose, engine.PINMinDigits, engine.PINMaxDigits))
	if err != nil {
		return "", err
	}
	if err := engine.CheckPIN(pin); err != nil {
		return "", usageError{err}
	}
	again, err := read("Confirmez le code PIN : ")
	if err != nil {
		return "", err
	}
	if again != pin {
		return "", usageError{errors.New("the two PINs differ: nothing changed")}
	}
	return pin, nil
}

func setPINFlags(fs *flag.FlagSet) func(*call) error {
	name := fs.String("name", engine.FirstAttendant, "the attendant whose PIN it is (`NAME`; the first: the operator PIN)")
	return func(c *call) error {
		if *name != engine.FirstAttendant {
			pin, err := newPIN(c, "de "+*name)
			if err != nil {
				return err
			}
			if err := c.svc.SetAttendantPIN(c.ctx, actorCLI, *name, pin); err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.out, "PIN of attendant %s set\n", *name)
			return err
		}
		return setPINRun(c)
	}
}

func attendantAddRun(c *call) error {
	name := c.args[0]
	if err := engine.CheckAttendantName(name); err != nil {
		return usageError{err}
	}
	pin, err := newPIN(c, "de "+name)
	if err != nil {
		return err
	}
	if err := c.svc.AddAttendant(c.ctx, actorCLI, name, pin); err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.out, "attendant %s added: they log in to the operator panel with their own PIN\n", name)
	return err
}

func attendantRemoveRun(c *call) error {
	if err := c.svc.RemoveAttendant(c.ctx, actorCLI, c.args[0]); err != nil {
		return err
	}
	_, err := fmt.Fprintf(c.out, "attendant %s removed: their PIN no longer opens the panel; their name stays in the logs\n", c.args[0])
	return err
}

func attendantListRun(c *call) error {
	names, err := c.svc.Attendants(c.ctx)
	if err != nil {
		return err
	}
	if c.json {
		if names == nil {
			names = []string{}
		}
		return json.NewEncoder(c.out).Encode(names)
	}
	for _, n := range names {
		fmt.Fprintln(c.out, n)
	}
	return nil
}

// actorOf is who acts at the command line: the attendant named by
// --attendant, once their PIN (from standard input or the terminal) is
// checked as the panel checks it, or "cli": staff holding the data key.
func actorOf(c *call, attendant string) (string, error) {
	if attendant == "" {
		return actorCLI, nil
	}
	pin, err := c.readPIN(fmt.Sprintf("PIN de %s : ", attendant))
	if err != nil {
		return "", err
	}
	if err := c.svc.Login(c.ctx, attendant, pin); err != nil {
		return "", fmt.Errorf("attendant %s: %w", attendant, err)
	}
	return attendant, nil
}

func setPINRun(c *call) error {
	ctx, svc, out := c.ctx, c.svc, c.out
	before, err := svc.PINStatus(ctx)
	if err != nil {
		return err
	}
	if before.Weak != nil {
		fmt.Fprintf(c.stderr, "starfortune: the operator PIN in force must be changed: %s\n", before.Weak.Reason())
	}
	pin, err := newPIN(c, "opérateur")
	if err != nil {
		return err
	}
	if err := svc.SetPIN(ctx, actorCLI, pin); err != nil {
		return err
	}
	if before.Locked != nil {
		_, err = fmt.Fprintf(out, "operator PIN set; it ends the operator panel's %s\n", before.Locked.Describe())
		return err
	}
	_, err = fmt.Fprintln(out, "operator PIN set")
	return err
}

// unlockRun ends the operator panel's lockout: the only way out of its
// last level besides a new PIN.
func unlockRun(c *call) error {
	before, err := c.svc.PINStatus(c.ctx)
	if err != nil {
		return err
	}
	ended, err := c.svc.Unlock(c.ctx, actorCLI)
	switch {
	case err != nil:
		return err
	case ended != nil:
		_, err = fmt.Fprintf(c.out, "operator access unlocked: ended %s; wrong PINs start again from the first lockout\n", ended.Describe())
	case before.Failures > 0 || before.Level > 0:
		_, err = fmt.Fprintf(c.out, "no lockout in force; cleared %d wrong PINs and %d lockouts in a row\n", before.Failures, before.Level)
	default:
		_, err = fmt.Fprintln(c.out, "no lockout in force: nothing to unlock")
	}
	return err
}

// pinStatusRun says whether the operator PIN is set and meets the rule,
// and the lockout in force.
func pinStatusRun(c *call) error {
	st, err := c.svc.PINStatus(c.ctx)
	if err != nil {
		return err
	}
	if c.json {
		j := struct {
			Set              bool    `json:"pin_set"`
			Notice           string  `json:"pin_notice,omitempty"`
			Locked           bool    `json:"locked"`
			Level            int     `json:"lockout_level,omitempty"`
			RemainingSeconds float64 `json:"remaining_seconds,omitempty"`
			UntilUnlock      bool    `json:"until_unlock,omitempty"`
			Failures         int     `json:"wrong_pins"`
			Lockouts         int     `json:"lockouts_in_a_row"`
		}{Set: st.Set, Locked: st.Locked != nil, Failures: st.Failures, Lockouts: st.Level}
		if st.Weak != nil {
			j.Notice = st.Weak.Reason()
		}
		if st.Locked != nil {
			j.Level, j.RemainingSeconds, j.UntilUnlock = st.Locked.Level, st.Locked.Remaining.Seconds(), st.Locked.UntilUnlock
		}
		return json.NewEncoder(c.out).Encode(j)
	}
	switch {
	case !st.Set:
		fmt.Fprintln(c.out, "operator PIN: not set, the operator panel is disabled (starfortune operator set-pin)")
	case st.Weak != nil:
		fmt.Fprintf(c.out, "operator PIN: set, but CHANGE IT: %s (starfortune operator set-pin)\n", st.Weak.Reason())
	default:
		fmt.Fprintf(c.out, "operator PIN: set, %d to %d digits, not easy to guess\n", engine.PINMinDigits, engine.PINMaxDigits)
	}
	switch l := st.Locked; {
	case l != nil && l.UntilUnlock:
		fmt.Fprintf(c.out, "lockout: LOCKED (level %d) until starfortune operator unlock, or a new PIN\n", l.Level)
	case l != nil:
		fmt.Fprintf(c.out, "lockout: LOCKED (level %d of %d) for %s more of running time (starfortune operator unlock ends it)\n",
			l.Level, engine.LockoutLevels, l.Remaining.Round(time.Second))
	default:
		fmt.Fprintf(c.out, "lockout: none; %d wrong PINs of %d before the next, %d lockouts since the last correct PIN\n",
			st.Failures, engine.MaxPINFailures, st.Level)
	}
	return nil
}

// readPINs returns a reader of one PIN per call: from the terminal without
// echo (prompting on stderr) when in is one, or a line of in otherwise
// (scripts, tests).
func readPINs(in io.Reader, stderr io.Writer) func(prompt string) (string, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return func(prompt string) (string, error) {
			fmt.Fprint(stderr, prompt)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(stderr)
			if err != nil {
				return "", fmt.Errorf("read PIN: %w", err)
			}
			return strings.TrimSpace(string(b)), nil
		}
	}
	sc := bufio.NewScanner(in)
	return func(string) (string, error) {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return "", fmt.Errorf("read PIN: %w", err)
			}
			return "", usageError{errors.New("give the PIN twice, one per line, on standard input")}
		}
		return strings.TrimSpace(sc.Text()), nil
	}
}

type operatorEventJSON struct {
	Seq    uint64 `json:"seq"`
	Time   string `json:"time"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Detail string `json:"detail"`
}

func eventJSON(e engine.OperatorEvent) operatorEventJSON {
	return operatorEventJSON{e.Seq, e.Time.Format(time.RFC3339), e.Actor, e.Action, e.Detail}
}

func eventsJSON(events []engine.OperatorEvent) []operatorEventJSON {
	js := make([]operatorEventJSON, 0, len(events))
	for _, e := range events {
		js = append(js, eventJSON(e))
	}
	return js
}

// printJournalAnchor prints, after a blank line, the journal's head and
// the stores rebuilt without one as the game holds them now (printAnchor).
func (c *call) printJournalAnchor(out io.Writer) error {
	head, unanchored, err := c.svc.Anchor(c.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	printAnchor(out, head, unanchored)
	return nil
}

// printAnchor prints the journal's head, for staff to write down (recover
// asks for it when the store is lost), and the stores rebuilt without one.
func printAnchor(out io.Writer, head engine.JournalHead, unanchored []engine.OperatorEvent) {
	fmt.Fprintf(out, "journal head %s (note it: recover --expect-head asks for it if the store is lost)\n", head)
	for _, e := range unanchored {
		fmt.Fprintf(out, "RECOVERED WITHOUT ANCHOR on %s by %s: %s\n", e.Time.Local().Format("02/01/2006 15:04:05"), e.Actor, e.Detail)
	}
}

func operatorLogFlags(fs *flag.FlagSet) func(*call) error {
	last := fs.Int("last", 20, "the last `N` events, newest first")
	return func(c *call) error { return operatorLog(c, *last) }
}

func operatorLog(c *call, last int) error {
	out := c.out
	if last < 1 {
		return usageError{errors.New("--last must be at least 1")}
	}
	events, err := c.svc.OperatorLog(c.ctx, last)
	if err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(out)
		for _, e := range events {
			if err := enc.Encode(eventJSON(e)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(events) == 0 {
		_, err := fmt.Fprintln(out, "the operator log is empty")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, e := range events {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", e.Seq, e.Time.Local().Format("02/01/2006 15:04:05"), e.Actor, e.Action, e.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return c.printJournalAnchor(out)
}

// cmdReport is the block report: per block, units served and left, left
// per prize tier, prizes paid, payout so far against the table's; --csv
// for spreadsheets (amounts in euros with a point), --json in cents.
func reportFlags(fs *flag.FlagSet) func(*call) error {
	asCSV := fs.Bool("csv", false, "CSV with a header line, amounts in euros (decimal point)")
	return func(c *call) error { return report(c, *asCSV) }
}

func report(c *call, asCSV bool) error {
	out := c.out
	rep, err := c.svc.BlockReport(c.ctx)
	if err != nil {
		return err
	}
	switch {
	case asCSV:
		return present.BlockReportCSV(out, rep)
	case c.json:
		enc := json.NewEncoder(out)
		for _, b := range rep {
			if err := enc.Encode(blockReportJSON(b)); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "BLOC\tMISE\tVENDUES\tRESTANTES\tGAINS PAYÉS\tTAUX (table %s)\t\n", fr.WholePercent(engine.TablePayoutRatio()))
	for _, b := range rep {
		paid, ratio := "en vente", "—"
		if b.Exhausted() {
			paid, ratio = fr.Money(b.Paid), fr.Percent(b.Ratio())
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t\n", b.Ref, fr.Money(b.Ref.Stake), b.Served, b.Left, paid, ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nUnités par gain (× mise), blocs épuisés seulement : un bloc en vente ne dit rien de ce qu'il lui reste.")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "BLOC\t")
	for _, t := range engine.PrizeTable {
		if t.Multiple == 0 {
			fmt.Fprint(tw, "perdantes\t")
		} else {
			fmt.Fprintf(tw, "%d×\t", t.Multiple)
		}
	}
	fmt.Fprintln(tw)
	for _, b := range rep {
		if !b.Exhausted() {
			continue
		}
		fmt.Fprintf(tw, "%s\t", b.Ref)
		for _, n := range b.Tally {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nEngagements et graines :")
	for _, b := range rep {
		seed := "graine secrète jusqu'à épuisement"
		if b.Exhausted() {
			seed = fmt.Sprintf("graine %x", b.Seed)
		}
		fmt.Fprintf(out, "%s  engagement %s  %s\n", b.Ref, b.Commitment, seed)
	}
	return c.printJournalAnchor(out)
}
