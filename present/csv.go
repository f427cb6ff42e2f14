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
// the header's "_eur" suffix says; ratios are fractions ("0.7012").
func BlockReportCSV(w io.Writer, report []engine.BlockStatus) error {
	cw := csv.NewWriter(w)
	header := []string{"block", "stake_eur", "size", "served", "left", "paid_eur", "sales_eur", "payout_ratio", "table_ratio"}
	for _, t := range engine.PrizeTable {
		header = append(header, fmt.Sprintf("left_prize_%dx", t.Multiple))
	}
	header = append(header, "commitment_sha256", "seed")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, b := range report {
		row := []string{b.Ref.String(), b.Ref.Stake.Euros(), fmt.Sprint(b.Size), fmt.Sprint(b.Served), fmt.Sprint(b.Left),
			b.Paid.Euros(), b.Sales.Euros(), fmt.Sprintf("%.4f", b.Ratio()), fmt.Sprintf("%.4f", engine.TablePayoutRatio())}
		for _, n := range b.LeftByTier {
			row = append(row, fmt.Sprint(n))
		}
		seed := ""
		if b.Exhausted() {
			seed = hex.EncodeToString(b.Seed[:])
		}
		row = append(row, b.Commitment.String(), seed)
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
