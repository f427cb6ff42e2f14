package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"starfortune/central"
	"starfortune/engine"
)

// withCentral opens the central's database as its owner (--db), checks
// its schema (but for init, which makes it), and runs the command.
func withCentral(c *call, cmd *command, run func(*call) error) error {
	if c.shared.db == "" {
		return usageError{errors.New("give the central's connection string: central --db URL " + strings.TrimPrefix(cmd.name, "central "))}
	}
	a, err := central.OpenAdmin(c.ctx, c.shared.db)
	if err != nil {
		return err
	}
	defer a.Close()
	if cmd.name != "central init" {
		if err := a.CheckSchema(c.ctx); err != nil {
			return err
		}
	}
	c.admin = a
	return run(c)
}

func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	return enc.Encode(v)
}

func centralInit(c *call) error {
	out := c.out
	applied, err := c.admin.Init(c.ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(out, "schema up to date")
	}
	for _, m := range applied {
		fmt.Fprintln(out, "applied", m)
	}
	return nil
}

func centralEmissionFlags(fs *flag.FlagSet) func(*call) error {
	stakeArg := fs.String("stake", "", "required: the stake in `EUROS`: 0.5 (or 0,50), 1 or 2")
	blocks := fs.Int("blocks", 0, "required: `N` blocks")
	packSize := fs.Int("pack-size", central.DefaultPackSize, "`P` units per pack, 9 to 10 000 (what a kiosk holds)")
	return func(c *call) error { return centralEmission(c, *stakeArg, *blocks, *packSize) }
}

func centralEmission(c *call, stakeArg string, blocks, packSize int) error {
	out := c.out
	stake, err := engine.ParseStake(stakeArg)
	if err != nil {
		return usageError{err}
	}
	if blocks < 1 {
		return usageError{errors.New("--blocks: at least 1")}
	}
	em, err := c.admin.CreateEmission(c.ctx, stake, blocks, packSize)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(out, em)
	}
	fmt.Fprintf(out, "emission %d: %d blocks at %s, packs of %d units\n", em.ID, len(em.Blocks), engine.Cents(em.StakeCents), em.PackSize)
	for i := range em.Blocks {
		fmt.Fprintf(out, "  %s  commitment %s\n", em.Blocks[i], em.Roots[i])
	}
	return nil
}

func centralKioskAdd(c *call) error {
	out := c.out
	k, err := c.admin.AddKiosk(c.ctx, c.args[0])
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(out, k)
	}
	fmt.Fprintf(out, "kiosk %s: role %s\nconnection string (shown this once; keep it in the kiosk's settings):\n%s\n", k.ID, k.Role, k.URL)
	fmt.Fprintf(out, "call key, for a kiosk behind a pooler (shown this once; [central] call_key, with the url of `central pooler`):\n%s\n", k.CallKey)
	return nil
}

func centralPoolerFlags(fs *flag.FlagSet) func(*call) error {
	addr := fs.String("pooler", "", "where kiosks reach the pooler, as `\"host=H port=P\"` (default: the central's own host and port)")
	return func(c *call) error {
		p, err := c.admin.AddPooler(c.ctx, *addr)
		if err != nil {
			return err
		}
		if c.json {
			return printJSON(c.out, p)
		}
		fmt.Fprintf(c.out, "pooled role %s (its only rights: the kiosk functions; it acts as no kiosk until a call proves one)\n", p.Role)
		fmt.Fprintf(c.out, "connection string of every kiosk behind the pooler (shown this once; [central] url, with each kiosk's call_key):\n%s\n", p.URL)
		fmt.Fprintf(c.out, "the pooler's auth_file line (PgBouncer's userlist.txt; the SCRAM verifier, not the password):\n%s\n", p.UserList)
		return nil
	}
}

// fleetJSON is `central kiosks --json`: the fleet view for scripts, in
// counts and integer cents; online is judged against the central's clock.
type fleetJSON struct {
	At            time.Time           `json:"at"`
	OnlineWithinS int                 `json:"online_within_s"`
	LostAfterS    int                 `json:"lost_after_s"`
	Kiosks        []kioskViewJSON     `json:"kiosks"`
	Stakes        []stakeProgressJSON `json:"stakes"`
}

type kioskViewJSON struct {
	ID        string          `json:"id"`
	Online    bool            `json:"online"`
	Status    string          `json:"status"` // online, late, lost, never seen
	LastSeen  *time.Time      `json:"last_seen"`
	Backlog   int             `json:"backlog"`
	BacklogAt *time.Time      `json:"backlog_at"`
	Sales     uint64          `json:"sales"`
	Held      []heldStakeJSON `json:"held"`
}

type heldStakeJSON struct {
	StakeCents int64  `json:"stake_cents"`
	Packs      int    `json:"packs"`
	Left       uint64 `json:"left"`
}

type stakeProgressJSON struct {
	StakeCents int64  `json:"stake_cents"`
	Blocks     int    `json:"blocks"`
	Closed     int    `json:"closed"`
	Size       uint64 `json:"size"`
	HandedOut  uint64 `json:"handed_out"`
	Sold       uint64 `json:"sold"`
	Voided     uint64 `json:"voided"`
}

func fleetLine(v engine.FleetView) fleetJSON {
	j := fleetJSON{At: v.At, OnlineWithinS: int(engine.OnlineWithin / time.Second), LostAfterS: int(engine.LostAfter / time.Second), Kiosks: []kioskViewJSON{}, Stakes: []stakeProgressJSON{}}
	for _, k := range v.Kiosks {
		kj := kioskViewJSON{ID: k.ID, Online: k.Online(v.At), Status: k.Status(v.At).String(), LastSeen: timePtr(k.LastSeen), Backlog: k.Backlog,
			BacklogAt: timePtr(k.BacklogAt), Sales: k.Sales, Held: []heldStakeJSON{}}
		for _, h := range k.Held {
			kj.Held = append(kj.Held, heldStakeJSON{StakeCents: int64(h.Stake), Packs: h.Packs, Left: h.Left})
		}
		j.Kiosks = append(j.Kiosks, kj)
	}
	for _, s := range v.Stakes {
		j.Stakes = append(j.Stakes, stakeProgressJSON{StakeCents: int64(s.Stake), Blocks: s.Blocks, Closed: s.Closed, Size: s.Size,
			HandedOut: s.HandedOut, Sold: s.Sold, Voided: s.Voided})
	}
	return j
}

// centralKiosks prints the fleet view: each kiosk online or offline
// against the central's clock, what it holds, and each stake's progress.
func centralKiosks(c *call) error {
	out := c.out
	v, err := c.admin.FleetView(c.ctx)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(out, fleetLine(v))
	}
	fmt.Fprintf(out, "central clock %s; online: called within %s, late: within %s, lost: beyond\n", v.At.Local().Format(time.DateTime),
		engine.OnlineWithin, engine.LostAfter)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIOSK\tSTATUS\tLAST SEEN\tBACKLOG\tSALES\tPACKS HELD (UNITS LEFT)")
	for _, k := range v.Kiosks {
		seen, status := "never", k.Status(v.At).String()
		if !k.LastSeen.IsZero() {
			seen = k.LastSeen.Local().Format(time.DateTime)
		}
		var held []string
		for _, h := range k.Held {
			held = append(held, fmt.Sprintf("%s: %d (%d)", h.Stake, h.Packs, h.Left))
		}
		if held == nil {
			held = []string{"none"}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", k.ID, status, seen, k.Backlog, k.Sales, strings.Join(held, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	fmt.Fprintln(tw, "STAKE\tBLOCKS\tCLOSED\tSOLD / SIZE\tSOLD %\tHANDED OUT\tVOIDED")
	for _, s := range v.Stakes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d / %d\t%s\t%d\t%d\n", s.Stake, s.Blocks, s.Closed, s.Sold, s.Size, percent(s.Sold, s.Size), s.HandedOut, s.Voided)
	}
	return tw.Flush()
}

// percent is n of total to two decimals, rounded down so that 100 % means all.
func percent(n, total uint64) string {
	if total == 0 {
		return "-"
	}
	bp := n * 10000 / total
	return fmt.Sprintf("%d.%02d %%", bp/100, bp%100)
}

func centralBlocks(c *call) error {
	out := c.out
	bs, err := c.admin.Blocks(c.ctx)
	if err != nil {
		return err
	}
	if c.json {
		enc := json.NewEncoder(out)
		for _, b := range bs {
			if err := enc.Encode(b); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BLOCK\tSTAKE\tSIZE\tHANDED OUT\tSOLD\tVOIDED\tCLOSED\tCOMMITMENT\tSEED")
	for _, b := range bs {
		seed := "(secret until closed)"
		if b.Closed {
			seed = b.Seed
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%t\t%s\t%s\n", b.ID, engine.Cents(b.StakeCents), b.Size, b.HandedOut, b.Sold, b.Voided, b.Closed, b.Commitment, seed)
	}
	return tw.Flush()
}

// fleetSaleJSON is a unit sold by a kiosk of the fleet: its leaf fields
// (block, index, stake, prize, drops) as `history --json` prints them, so
// that `verify` reads these lines too.
type fleetSaleJSON struct {
	Ticket     string     `json:"ticket"`
	Kiosk      string     `json:"kiosk"`
	Pack       string     `json:"pack"`
	Seq        uint64     `json:"seq"`
	Player     string     `json:"player"`
	StakeCents int64      `json:"stake_cents"`
	PrizeCents int64      `json:"prize_cents"`
	Drops      []dropJSON `json:"drops"`
	Block      string     `json:"block"`
	Index      uint32     `json:"index"`
	Time       string     `json:"time"`
	Revealed   bool       `json:"revealed"`
}

// fleetSaleLine is s as `central show --json` and `central units` print it.
func fleetSaleLine(s engine.FleetSale) fleetSaleJSON {
	t, stake := s.Ticket, s.Ticket.Block.Stake
	j := fleetSaleJSON{Ticket: t.String(), Kiosk: s.Kiosk, Pack: s.Pack, Seq: s.Seq, Player: s.Player, StakeCents: int64(stake),
		PrizeCents: int64(s.Unit.Prize(stake)), Block: t.Block.String(), Index: t.Index, Time: s.Time.Format(time.RFC3339), Revealed: s.Revealed}
	for _, d := range s.Unit.Drops {
		kind := "spot"
		if d.Dest.Bonus {
			kind = "bonus"
		}
		j.Drops = append(j.Drops, dropJSON{Slot: engine.NoSlot, Kind: kind, Index: d.Dest.Index, ValueCents: int64(d.Value(stake))})
	}
	return j
}

// centralUnits prints a closed block's sold units as JSON lines, which
// `verify` reads with the block's revealed seed and published root.
func centralUnits(c *call) error {
	out := c.out
	ref, err := parseBlockRef(c.args[0])
	if err != nil {
		return usageError{err}
	}
	sales, err := c.admin.BlockSales(c.ctx, ref)
	if err != nil {
		return blockError(ref, err)
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for _, s := range sales {
		if err := enc.Encode(fleetSaleLine(s)); err != nil {
			return err
		}
	}
	return w.Flush()
}

func centralShow(c *call) error {
	out := c.out
	t, err := engine.ParseTicket(c.args[0])
	if err != nil {
		return err
	}
	s, err := c.admin.Show(c.ctx, t)
	if err != nil {
		return err
	}
	stake := t.Block.Stake
	if c.json {
		return printJSON(out, fleetSaleLine(s))
	}
	fmt.Fprintf(out, "ticket %s\nsold by kiosk %s (pack %s, sale %d) on %s to %s\nstake %s, prize %s: %s ; %s\n",
		t, s.Kiosk, s.Pack, s.Seq, s.Time.Local().Format("02/01/2006 15:04:05"), s.Player, stake, s.Unit.Prize(stake),
		describeDrop(s.Unit.Drops[0], stake), describeDrop(s.Unit.Drops[1], stake))
	return nil
}

func centralVoidFlags(fs *flag.FlagSet) func(*call) error {
	reason := fs.String("reason", "", "required: `TEXT` saying why the pack is voided (kept with it)")
	return func(c *call) error {
		if strings.TrimSpace(*reason) == "" {
			return usageError{errors.New("say why with --reason TEXT")}
		}
		if err := c.admin.VoidPack(c.ctx, c.args[0], *reason); err != nil {
			return err
		}
		_, err := fmt.Fprintf(c.out, "pack %s voided\n", c.args[0])
		return err
	}
}

func centralReanchorFlags(fs *flag.FlagSet) func(*call) error {
	reason := fs.String("reason", "", "required: `TEXT` saying why the kiosk's journal went back (kept with its alarms)")
	return func(c *call) error {
		if strings.TrimSpace(*reason) == "" {
			return usageError{errors.New("say why with --reason TEXT")}
		}
		n, err := c.admin.Reanchor(c.ctx, c.args[0], *reason)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(c.out, "kiosk %s re-anchored: its next sync anchors its journal anew; %d alarms resolved\n", c.args[0], n)
		return err
	}
}

// errFleetFindings makes `central audit` exit non-zero.
var errFleetFindings = errors.New("the fleet audit has findings")

func centralAuditFlags(fs *flag.FlagSet) func(*call) error {
	archive := fs.String("archive", "", "the `DIR`ectory of the archived blocks' files (central archive), which the audit checks")
	return func(c *call) error { return centralAudit(c, *archive) }
}

func centralAudit(c *call, archive string) error {
	out := c.out
	rep, err := c.admin.AuditFrom(c.ctx, archive)
	if err != nil {
		return err
	}
	if c.json {
		if err := printJSON(out, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "central audit: %d blocks (%d from their archive), %d sales, %d kiosks checked\n", rep.Blocks, rep.Archived, rep.Sales, rep.Kiosks)
		for _, f := range rep.Findings {
			fmt.Fprintln(out, "FINDING:", f)
		}
		if rep.OK {
			fmt.Fprintln(out, "audit OK")
		}
	}
	if !rep.OK {
		return fmt.Errorf("%w: %d", errFleetFindings, len(rep.Findings))
	}
	return nil
}

// centralArchive archives closed blocks into the directory c.args[0].
func centralArchive(c *call) error {
	var refs []engine.BlockRef
	for _, a := range c.args[1:] {
		ref, err := parseBlockRef(a)
		if err != nil {
			return usageError{err}
		}
		refs = append(refs, ref)
	}
	done, err := c.admin.Archive(c.ctx, c.args[0], refs)
	if c.json {
		if done == nil {
			done = []central.ArchivedBlock{}
		}
		if jerr := printJSON(c.out, done); jerr != nil {
			return jerr
		}
	} else {
		for _, ab := range done {
			fmt.Fprintf(c.out, "block %s archived: %s, %d sales, SHA-256 %s\n", ab.Ref, ab.File, ab.Sales, ab.SHA256)
		}
		if err == nil && len(done) == 0 {
			fmt.Fprintln(c.out, "no block to archive")
		}
	}
	return err
}
