package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"starfortune/central"
	"starfortune/engine"
)

const reportUsage = `usage: report [--csv|--json] [--from YYYY-MM-DD] [--to YYYY-MM-DD]   per kiosk and day
       report --closing [BLOCK] [--csv|--json]                          closed blocks' closing reports`

// centralReport prints the daily report per kiosk, or the closing reports.
func centralReportFlags(fs *flag.FlagSet) func(*call) error {
	asCSV := fs.Bool("csv", false, "print CSV")
	from := fs.String("from", "", "first `DAY`, YYYY-MM-DD")
	to := fs.String("to", "", "last `DAY`, YYYY-MM-DD")
	closing := fs.Bool("closing", false, "closing reports of closed blocks")
	return func(c *call) error { return centralReport(c, *asCSV, *closing, *from, *to) }
}

func centralReport(c *call, asCSV, closing bool, from, to string) error {
	ctx, a, pos, out := c.ctx, c.admin, c.args, c.out
	if asCSV && c.json || len(pos) == 1 && !closing || closing && (from != "" || to != "") {
		return usageError{errors.New(reportUsage)}
	}
	format := map[bool]string{true: "csv", false: "text"}[asCSV]
	if c.json {
		format = "json"
	}
	if closing {
		return closingReport(ctx, a, pos, format, out)
	}
	rep, err := a.DailyReport(ctx, from, to)
	if errors.Is(err, central.ErrBadPeriod) {
		return usageError{fmt.Errorf("--from and --to take days written YYYY-MM-DD, --from not after --to\n%s", reportUsage)}
	}
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return printJSON(out, rep)
	case "csv":
		w := csv.NewWriter(out)
		w.Write([]string{"day", "kiosk", "units", "stake_cents", "prize_cents", "credit_cents", "grant_cents", "payout_cents"})
		for _, d := range rep.Days {
			for _, k := range d.Kiosks {
				w.Write(append([]string{d.Day, k.Kiosk}, figureCells(k.Figures)...))
			}
			w.Write(append([]string{d.Day, "TOTAL"}, figureCells(d.Total)...))
		}
		w.Flush()
		return w.Error()
	}
	fmt.Fprintf(out, "daily report per kiosk (days in %s, by the kiosks' clocks)\n", rep.TimeZone)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "DAY\tKIOSK\tUNITS\tSTAKES\tPRIZES\tCREDITS\tGRANTS\tPAYOUTS\t")
	for _, d := range rep.Days {
		for _, k := range d.Kiosks {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", d.Day, k.Kiosk, figureText(k.Figures))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", d.Day, "total", figureText(d.Total))
	}
	if len(rep.Days) == 0 {
		fmt.Fprintln(tw, "(no activity)\t\t\t\t\t\t\t\t")
	}
	return tw.Flush()
}

func figureCells(f central.Figures) []string {
	var out []string
	for _, v := range []int64{f.Units, f.StakeCents, f.PrizeCents, f.CreditCents, f.GrantCents, f.PayoutCents} {
		out = append(out, strconv.FormatInt(v, 10))
	}
	return out
}

func figureText(f central.Figures) string {
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s", f.Units, engine.Cents(f.StakeCents).Euros(), engine.Cents(f.PrizeCents).Euros(),
		engine.Cents(f.CreditCents).Euros(), engine.Cents(f.GrantCents).Euros(), engine.Cents(f.PayoutCents).Euros())
}

// blockError words the central's block errors for support staff.
func blockError(ref engine.BlockRef, err error) error {
	switch {
	case errors.Is(err, central.ErrBlockOpen):
		return fmt.Errorf("block %s is not closed: it is still in play, so nothing that tells its outcomes or the prizes paid from it "+
			"is given yet; its closing report, sold units and seed are published once every position is sold or voided (see central blocks)", ref)
	case errors.Is(err, central.ErrNoBlock):
		return fmt.Errorf("the central has no block %s (see central blocks)", ref)
	case errors.Is(err, central.ErrBlockArchived):
		return fmt.Errorf("block %s is archived: its sales are in its file %s.jsonl of the archive (central archive), which central audit --archive checks", ref, ref)
	}
	return err
}

func closingReport(ctx context.Context, a *central.Admin, pos []string, format string, out io.Writer) error {
	var reps []central.ClosingReport
	if len(pos) == 1 {
		ref, err := parseBlockRef(pos[0])
		if err != nil {
			return usageError{err}
		}
		r, err := a.ClosingReport(ctx, ref)
		if err != nil {
			return blockError(ref, err)
		}
		reps = []central.ClosingReport{r}
	} else {
		var err error
		if reps, err = a.ClosingReports(ctx); err != nil {
			return err
		}
	}
	switch format {
	case "json":
		if len(pos) == 1 {
			return printJSON(out, reps[0])
		}
		return printJSON(out, reps)
	case "csv":
		return closingCSV(out, reps)
	}
	if len(reps) == 0 {
		fmt.Fprintln(out, "no block is closed yet")
	}
	for i, r := range reps {
		if i > 0 {
			fmt.Fprintln(out)
		}
		closingText(out, r)
	}
	return nil
}

func closingText(out io.Writer, r central.ClosingReport) {
	stake := engine.Cents(r.StakeCents)
	opened := "never (no pack was claimed)"
	if r.OpenedAt != nil {
		opened = r.OpenedAt.Local().Format(time.DateTime)
	}
	table := "they add up to the table"
	if !r.TableMatches {
		table = "THEY DO NOT ADD UP TO THE TABLE: run central audit"
	}
	var kiosks []string
	for _, k := range r.Kiosks {
		kiosks = append(kiosks, fmt.Sprintf("%s %d", k.Kiosk, k.Units))
	}
	if kiosks == nil {
		kiosks = []string{"none"}
	}
	fmt.Fprintf(out, "closing report of block %s, stake %s, %d positions\n", r.Block, stake, r.Size)
	fmt.Fprintf(out, "drawn %s, opened %s, closed %s\n", r.DrawnAt.Local().Format(time.DateTime), opened, r.ClosedAt.Local().Format(time.DateTime))
	fmt.Fprintf(out, "commitment %s\nseed       %s\n", r.Commitment, r.Seed)
	fmt.Fprintf(out, "units sold %d, voided %d; prizes paid %s, voided %s\n", r.Sold, r.Voided,
		engine.Cents(r.PrizesPaidCents), engine.Cents(r.PrizesVoidedCents))
	fmt.Fprintf(out, "sold by: %s\n", strings.Join(kiosks, ", "))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PRIZE\tTABLE\tSOLD\tVOIDED\t")
	for _, t := range r.Tiers {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", engine.Cents(t.PrizeCents).Euros(), t.Table, t.Sold, t.Voided)
	}
	tw.Flush()
	fmt.Fprintf(out, "per tier, sold + voided: %s\n", table)
}

// closingCSV is one row per closed block, the tiers as columns.
func closingCSV(out io.Writer, reps []central.ClosingReport) error {
	w := csv.NewWriter(out)
	head := []string{"block", "stake_cents", "size", "drawn_at", "opened_at", "closed_at", "units_sold", "units_voided",
		"prizes_paid_cents", "prizes_voided_cents", "table_matches", "commitment", "seed", "kiosks"}
	for _, t := range engine.PrizeTable {
		head = append(head, fmt.Sprintf("sold_x%d", t.Multiple), fmt.Sprintf("voided_x%d", t.Multiple))
	}
	w.Write(head)
	for _, r := range reps {
		opened := ""
		if r.OpenedAt != nil {
			opened = r.OpenedAt.UTC().Format(time.RFC3339)
		}
		var kiosks []string
		for _, k := range r.Kiosks {
			kiosks = append(kiosks, fmt.Sprintf("%s=%d", k.Kiosk, k.Units))
		}
		row := []string{r.Block, strconv.FormatInt(r.StakeCents, 10), strconv.Itoa(r.Size), r.DrawnAt.UTC().Format(time.RFC3339), opened,
			r.ClosedAt.UTC().Format(time.RFC3339), strconv.Itoa(r.Sold), strconv.Itoa(r.Voided), strconv.FormatInt(r.PrizesPaidCents, 10),
			strconv.FormatInt(r.PrizesVoidedCents, 10), strconv.FormatBool(r.TableMatches), r.Commitment, r.Seed, strings.Join(kiosks, " ")}
		for _, t := range r.Tiers {
			row = append(row, strconv.Itoa(t.Sold), strconv.Itoa(t.Voided))
		}
		w.Write(row)
	}
	w.Flush()
	return w.Error()
}
