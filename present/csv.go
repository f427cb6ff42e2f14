package present

import (
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"

	"starfortune/engine"
)

// The CSV exports, for auditors' spreadsheets: amounts in euros with a point
// ("7.50", as the headers' "_eur" says), whatever the language.

// BlockReportCSV writes the block report as CSV with a header line.
// Amounts are in euros with a point as the decimal separator ("7.50"), as
// the header's "_eur" suffix says; ratios are fractions ("0.7012"). A block
// on sale has its closing columns (paid, payout, units per prize, seed)
// empty: they would tell what is left in it.
func BlockReportCSV(w io.Writer, report []engine.BlockStatus) error {
	cw := csv.NewWriter(w)
	header := []string{"block", "stake_eur", "size", "served", "left", "sales_eur", "paid_eur", "payout_ratio", "table_ratio"}
	for _, t := range engine.PrizeTable {
		header = append(header, fmt.Sprintf("units_prize_%dx", t.Multiple))
	}
	header = append(header, "commitment", "seed")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, b := range report {
		row := []string{b.Ref.String(), b.Ref.Stake.Euros(), fmt.Sprint(b.Size), fmt.Sprint(b.Served), fmt.Sprint(b.Left),
			b.Sales.Euros()}
		closing := make([]string, 2+engine.NumTiers+1)
		if b.Exhausted() {
			closing[0], closing[1] = b.Paid.Euros(), fmt.Sprintf("%.4f", b.Ratio())
			for t, n := range b.Tally {
				closing[2+t] = fmt.Sprint(n)
			}
			closing[len(closing)-1] = hex.EncodeToString(b.Seed[:])
		}
		row = append(row, closing[:2]...)
		row = append(row, fmt.Sprintf("%.4f", engine.TablePayoutRatio()))
		row = append(row, closing[2:2+engine.NumTiers]...)
		row = append(row, b.Commitment.String(), closing[len(closing)-1])
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// HistoryCSV writes units as CSV with a header line, amounts in euros
// with a point ("7.50"), times in RFC 3339 (UTC), slots from 1 (empty while
// the puck is not chosen).
func HistoryCSV(w io.Writer, sales []engine.Sale) error {
	cw := csv.NewWriter(w)
	err := cw.Write([]string{"time", "ticket", "player", "stake_eur", "prize_eur", "balance_before_eur", "balance_after_eur",
		"slot1", "drop1", "drop1_eur", "slot2", "drop2", "drop2_eur", "revealed"})
	if err != nil {
		return err
	}
	for _, s := range sales {
		row := []string{s.Time.UTC().Format(time.RFC3339), s.Ticket.String(), s.Player, s.Stake().Euros(), s.Prize().Euros(),
			s.BalanceBefore.Euros(), s.BalanceAfter.Euros()}
		for d, drop := range s.Unit.Drops {
			slot := ""
			if s.Reveal.Slots[d] != engine.NoSlot {
				slot = fmt.Sprint(s.Reveal.Slots[d] + 1)
			}
			where := fmt.Sprintf("spot %d", drop.Dest.Index+1)
			if drop.Dest.Bonus {
				where = fmt.Sprintf("bonus %d", drop.Dest.Index+1)
			}
			row = append(row, slot, where, drop.Value(s.Stake()).Euros())
		}
		row = append(row, strconv.FormatBool(s.Done()))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// RegisterCSV writes the register of large wins (prizes set aside or
// held, identity checks, hand-pays) as CSV with a header line: the record's
// number, its time in RFC 3339 (UTC), its kind, the account's wallet, the
// holder and their document, the ticket, the amount in euros with a point,
// the detail (the document seen; a hand-pay's "method|reference") and who
// did it.
func RegisterCSV(w io.Writer, register []engine.RegisterEntry) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"seq", "time", "kind", "player", "holder", "document", "ticket", "amount_eur", "detail", "actor"}); err != nil {
		return err
	}
	for _, e := range register {
		r := e.Record
		row := []string{strconv.FormatUint(r.Seq, 10), r.Time.UTC().Format(time.RFC3339), r.Kind.String(), r.Player, e.Holder, e.Document,
			r.Ticket.String(), r.Amount.Euros(), r.Text, r.Actor}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
