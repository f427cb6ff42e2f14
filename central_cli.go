package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"starfortune/central"
	"starfortune/engine"
)

// standaloneCommands need no data directory, settings or log file: the
// fleet's central administration and the block verifier.
var standaloneCommands = map[string]func(ctx context.Context, args []string, stdout io.Writer) error{
	"central": cmdCentral,
	"verify":  func(_ context.Context, args []string, stdout io.Writer) error { return cmdVerify(args, stdout) },
}

// runStandalone runs one of standaloneCommands and turns its error into an
// exit status as run does.
func runStandalone(cmd string, fn func(context.Context, []string, io.Writer) error, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return exitStatus(cmd, fn(ctx, args, stdout), stderr)
}

const centralUsage = `usage: starfortune central --db URL COMMAND
  init                                                 create or migrate the schema
  emission create --stake 0.5|1|2 --blocks N [--pack-size P] [--json]
  kiosk add ID [--json]                                prints the kiosk's connection string, once
  kiosks [--json]
  blocks [--json]
  show TICKET [--json]
  units BLOCK                                          a closed block's sold units, JSON lines (for verify)
  pack void PACK --reason TEXT
  audit [--json]                                       exits 1 with findings
  report [--csv|--json] [--from DAY] [--to DAY]        per kiosk and day (DAY: YYYY-MM-DD)
  report --closing [BLOCK] [--csv|--json]              closing reports of closed blocks
URL is a libpq connection string (postgres://… or host=/socket/dir port=… dbname=…)`

// cmdCentral administers the fleet's central database (central/).
func cmdCentral(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("central", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "", "the central's connection string")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	rest := fs.Args()
	if *db == "" || len(rest) == 0 {
		return usageError{errors.New(centralUsage)}
	}
	sub, key := rest[0], rest[0]
	if (sub == "emission" || sub == "kiosk" || sub == "pack") && len(rest) > 1 {
		key, rest = sub+" "+rest[1], rest[1:]
	}
	run, ok := centralCommands[key]
	if !ok {
		return usageError{fmt.Errorf("unknown command %q\n%s", key, centralUsage)}
	}
	a, err := central.OpenAdmin(ctx, *db)
	if err != nil {
		return err
	}
	defer a.Close()
	if key != "init" {
		if err := a.CheckSchema(ctx); err != nil {
			return err
		}
	}
	return run(ctx, a, rest[1:], out)
}

var centralCommands = map[string]func(context.Context, *central.Admin, []string, io.Writer) error{
	"init":            centralInit,
	"emission create": centralEmission,
	"kiosk add":       centralKioskAdd,
	"kiosks":          centralKiosks,
	"blocks":          centralBlocks,
	"show":            centralShow,
	"units":           centralUnits,
	"pack void":       centralVoid,
	"audit":           centralAudit,
	"report":          centralReport,
}

// noArgs parses a command that takes only --json.
func noArgs(name string, args []string) (asJSON bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	j := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args)
	if err == nil && len(pos) != 0 {
		err = usageError{fmt.Errorf("%s takes no argument", name)}
	}
	return *j, err
}

func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	return enc.Encode(v)
}

func centralInit(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	if _, err := noArgs("init", args); err != nil {
		return err
	}
	applied, err := a.Init(ctx)
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

func centralEmission(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("emission create", flag.ContinueOnError)
	stakeArg := fs.String("stake", "", "stake in euros: 0.5 (or 0,50), 1 or 2")
	blocks := fs.Int("blocks", 0, "number of blocks")
	packSize := fs.Int("pack-size", central.DefaultPackSize, "units per pack")
	asJSON := fs.Bool("json", false, "print JSON")
	if pos, err := parse(fs, args); err != nil || len(pos) != 0 {
		return usageError{fmt.Errorf("usage: emission create --stake 0.5|1|2 --blocks N [--pack-size P] [--json]")}
	}
	stake, err := engine.ParseStake(*stakeArg)
	if err != nil {
		return usageError{err}
	}
	if *blocks < 1 {
		return usageError{errors.New("--blocks: at least 1")}
	}
	em, err := a.CreateEmission(ctx, stake, *blocks, *packSize)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, em)
	}
	fmt.Fprintf(out, "emission %d: %d blocks at %s, packs of %d units\n", em.ID, len(em.Blocks), engine.Cents(em.StakeCents), em.PackSize)
	for i := range em.Blocks {
		fmt.Fprintf(out, "  %s  commitment %s\n", em.Blocks[i], em.Roots[i])
	}
	return nil
}

func centralKioskAdd(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("kiosk add", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError{errors.New("usage: kiosk add ID [--json]")}
	}
	k, err := a.AddKiosk(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, k)
	}
	fmt.Fprintf(out, "kiosk %s: role %s\nconnection string (shown this once; keep it in the kiosk's settings):\n%s\n", k.ID, k.Role, k.URL)
	return nil
}

// fleetJSON is `central kiosks --json`: the fleet view for scripts, in
// counts and integer cents; online is judged against the central's clock.
type fleetJSON struct {
	At            time.Time           `json:"at"`
	OnlineWithinS int                 `json:"online_within_s"`
	Kiosks        []kioskViewJSON     `json:"kiosks"`
	Stakes        []stakeProgressJSON `json:"stakes"`
}

type kioskViewJSON struct {
	ID        string          `json:"id"`
	Online    bool            `json:"online"`
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
	j := fleetJSON{At: v.At, OnlineWithinS: int(engine.OnlineWithin / time.Second), Kiosks: []kioskViewJSON{}, Stakes: []stakeProgressJSON{}}
	for _, k := range v.Kiosks {
		kj := kioskViewJSON{ID: k.ID, Online: k.Online(v.At), LastSeen: timePtr(k.LastSeen), Backlog: k.Backlog,
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
func centralKiosks(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	asJSON, err := noArgs("kiosks", args)
	if err != nil {
		return err
	}
	v, err := a.FleetView(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, fleetLine(v))
	}
	fmt.Fprintf(out, "central clock %s; online: called within %s\n", v.At.Local().Format(time.DateTime), engine.OnlineWithin)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIOSK\tSTATUS\tLAST SEEN\tBACKLOG\tSALES\tPACKS HELD (UNITS LEFT)")
	for _, k := range v.Kiosks {
		seen, status := "never", "offline"
		if !k.LastSeen.IsZero() {
			seen = k.LastSeen.Local().Format(time.DateTime)
		}
		if k.Online(v.At) {
			status = "online"
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

func centralBlocks(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	asJSON, err := noArgs("blocks", args)
	if err != nil {
		return err
	}
	bs, err := a.Blocks(ctx)
	if err != nil {
		return err
	}
	if asJSON {
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
func centralUnits(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("units", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError{errors.New("usage: units BLOCK (EE-SSS-NNNN)")}
	}
	ref, err := parseBlockRef(pos[0])
	if err != nil {
		return usageError{err}
	}
	sales, err := a.BlockSales(ctx, ref)
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

func centralShow(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError{errors.New("usage: show TICKET [--json]")}
	}
	t, err := engine.ParseTicket(pos[0])
	if err != nil {
		return err
	}
	s, err := a.Show(ctx, t)
	if err != nil {
		return err
	}
	stake := t.Block.Stake
	if *asJSON {
		return printJSON(out, fleetSaleLine(s))
	}
	fmt.Fprintf(out, "ticket %s\nsold by kiosk %s (pack %s, sale %d) on %s to %s\nstake %s, prize %s: %s ; %s\n",
		t, s.Kiosk, s.Pack, s.Seq, s.Time.Local().Format("02/01/2006 15:04:05"), s.Player, stake, s.Unit.Prize(stake),
		describeDrop(s.Unit.Drops[0], stake), describeDrop(s.Unit.Drops[1], stake))
	return nil
}

func centralVoid(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("pack void", flag.ContinueOnError)
	reason := fs.String("reason", "", "why the pack is voided (kept with it)")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 || strings.TrimSpace(*reason) == "" {
		return usageError{errors.New("usage: pack void PACK --reason TEXT")}
	}
	if err := a.VoidPack(ctx, pos[0], *reason); err != nil {
		return err
	}
	fmt.Fprintf(out, "pack %s voided\n", pos[0])
	return nil
}

// errFleetFindings makes `central audit` exit non-zero.
var errFleetFindings = errors.New("the fleet audit has findings")

func centralAudit(ctx context.Context, a *central.Admin, args []string, out io.Writer) error {
	asJSON, err := noArgs("audit", args)
	if err != nil {
		return err
	}
	rep, err := a.Audit(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		if err := printJSON(out, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "central audit: %d blocks, %d sales, %d kiosks checked\n", rep.Blocks, rep.Sales, rep.Kiosks)
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
