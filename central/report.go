package central

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// Errors of the reports, matched with errors.Is; the command line words them.
var (
	// ErrNoBlock: no block of the central has that reference.
	ErrNoBlock = errors.New("central: no such block")
	// ErrBadPeriod: a report's period is not two days YYYY-MM-DD, the first
	// not after the last.
	ErrBadPeriod = errors.New("central: a period is from and to days written YYYY-MM-DD, from not after to")
)

// Figures is what a kiosk, or the fleet, did in a day: units sold, the
// stakes they took and the prizes they won; cash paid in (credits), demo
// funds granted, cash paid out (payouts). Integer cents.
type Figures struct {
	Units       int64 `json:"units" db:"units"`
	StakeCents  int64 `json:"stake_cents" db:"stake_cents"`
	PrizeCents  int64 `json:"prize_cents" db:"prize_cents"`
	CreditCents int64 `json:"credit_cents" db:"credit_cents"`
	GrantCents  int64 `json:"grant_cents" db:"grant_cents"`
	PayoutCents int64 `json:"payout_cents" db:"payout_cents"`
}

func (f *Figures) add(g Figures) {
	f.Units, f.StakeCents, f.PrizeCents = f.Units+g.Units, f.StakeCents+g.StakeCents, f.PrizeCents+g.PrizeCents
	f.CreditCents, f.GrantCents, f.PayoutCents = f.CreditCents+g.CreditCents, f.GrantCents+g.GrantCents, f.PayoutCents+g.PayoutCents
}

// KioskDay is one kiosk's figures for one day.
type KioskDay struct {
	Kiosk string `json:"kiosk"`
	Figures
}

// kioskDayRow is a row of sql/report_daily.sql.
type kioskDayRow struct {
	Day   time.Time `db:"day"` // a date
	Kiosk string    `db:"kiosk"`
	Figures
}

// Day is the fleet's activity on one day: per kiosk, and in total.
type Day struct {
	Day    string     `json:"day"` // YYYY-MM-DD in the report's time zone
	Kiosks []KioskDay `json:"kiosks"`
	Total  Figures    `json:"total"`
}

// DailyReport is `central report`: the fleet's daily cash activity per
// kiosk, across blocks. Days are those of TimeZone, the central's
// PostgreSQL TimeZone setting (a connection string sets another with
// options=-c TimeZone=Europe/Paris), by the kiosks' clocks at each sale
// and movement.
type DailyReport struct {
	TimeZone string `json:"time_zone"`
	From     string `json:"from,omitempty"`
	To       string `json:"to,omitempty"`
	Days     []Day  `json:"days"`
}

// timeZoneSQL is the session's time zone, the days' of sql/report_daily.sql.
const timeZoneSQL = "SELECT current_setting('TimeZone')"

// DailyReport reports each kiosk's days from, to (YYYY-MM-DD, inclusive;
// "" for no bound). Only days with activity are listed.
func (a *Admin) DailyReport(ctx context.Context, from, to string) (DailyReport, error) {
	rep := DailyReport{From: from, To: to, Days: []Day{}}
	var bounds [2]*string
	for i, d := range []string{from, to} {
		if d == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return rep, fmt.Errorf("%w: %q", ErrBadPeriod, d)
		}
		bounds[i] = &d
	}
	if from != "" && to != "" && from > to {
		return rep, fmt.Errorf("%w: %s is after %s", ErrBadPeriod, from, to)
	}
	err := pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, timeZoneSQL).Scan(&rep.TimeZone); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, query("report_daily"), bounds[0], bounds[1])
		kds, err := pgx.CollectRows(rows, pgx.RowToStructByName[kioskDayRow])
		for _, k := range kds {
			day := k.Day.Format(time.DateOnly)
			if n := len(rep.Days); n == 0 || rep.Days[n-1].Day != day {
				rep.Days = append(rep.Days, Day{Day: day})
			}
			d := &rep.Days[len(rep.Days)-1]
			d.Kiosks = append(d.Kiosks, KioskDay{Kiosk: k.Kiosk, Figures: k.Figures})
			d.Total.add(k.Figures)
		}
		return err
	})
	if err != nil {
		return rep, fmt.Errorf("central: report: %w", err)
	}
	return rep, nil
}

// TierCount is one line of a closed block's prize table: the units of the
// tier sold and voided, which add up to the règlement's count.
type TierCount struct {
	Multiple   int64 `json:"multiple"`    // of the stake
	PrizeCents int64 `json:"prize_cents"` // at the block's stake
	Table      int   `json:"table"`       // units of the tier per block (article 3)
	Sold       int   `json:"sold"`
	Voided     int   `json:"voided"`
}

// KioskUnits is how many units of a block a kiosk sold.
type KioskUnits struct {
	Kiosk string `json:"kiosk"`
	Units int    `json:"units"`
}

// ClosingReport is a closed block's closing report: what it sold and
// voided, the prizes paid and voided, tier by tier, who sold it, when, and
// what anyone verifies it with (its published commitment and revealed
// seed). It exists only once the block is closed.
type ClosingReport struct {
	Block             string       `json:"block"`
	StakeCents        int64        `json:"stake_cents"`
	Size              int          `json:"size"`
	DrawnAt           time.Time    `json:"drawn_at"`  // its emission's creation
	OpenedAt          *time.Time   `json:"opened_at"` // its first pack claimed (nil: none was)
	ClosedAt          time.Time    `json:"closed_at"`
	Commitment        string       `json:"commitment"` // Merkle root, hex
	Seed              string       `json:"seed"`       // revealed at closure, hex
	Sold              int          `json:"sold"`
	Voided            int          `json:"voided"`
	PrizesPaidCents   int64        `json:"prizes_paid_cents"`   // the sold units' prizes
	PrizesVoidedCents int64        `json:"prizes_voided_cents"` // the voided positions' prizes
	TableMatches      bool         `json:"table_matches"`       // sold + voided = the table, tier by tier
	Tiers             []TierCount  `json:"tiers"`               // in the table's order, largest prize first
	Kiosks            []KioskUnits `json:"kiosks"`              // in kiosk order
}

// closedBlock is the row id of block ref: ErrNoBlock if there is none,
// ErrBlockOpen while it is in play.
func closedBlock(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, ref engine.BlockRef) (int64, error) {
	var id int64
	var closed, archived bool
	err := q.QueryRow(ctx, query("block_state"), int(ref.Emission), int(ref.Stake), int(ref.Number)).Scan(&id, &closed, &archived)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, fmt.Errorf("%w: %s", ErrNoBlock, ref)
	case err != nil:
		return 0, fmt.Errorf("central: %w", err)
	case !closed:
		return 0, fmt.Errorf("%w: %s", ErrBlockOpen, ref)
	case archived:
		return 0, fmt.Errorf("%w: %s", ErrBlockArchived, ref)
	}
	return id, nil
}

// ClosingReports reports every closed block, in block order.
func (a *Admin) ClosingReports(ctx context.Context) ([]ClosingReport, error) {
	return a.closing(ctx, nil)
}

// ClosingReport reports block ref: ErrBlockOpen while it is in play, for
// until then its report would tell the prizes paid from it so far, and so
// (the table being public) the value left in it.
func (a *Admin) ClosingReport(ctx context.Context, ref engine.BlockRef) (ClosingReport, error) {
	id, err := closedBlock(ctx, a.pool, ref)
	if err != nil {
		return ClosingReport{}, err
	}
	reps, err := a.closing(ctx, &id)
	if err == nil && len(reps) != 1 {
		err = fmt.Errorf("central: closing report: %w: %s", ErrBlockOpen, ref)
	}
	if err != nil {
		return ClosingReport{}, err
	}
	return reps[0], nil
}

// closingBlockRow is a closed block as sql/closing_blocks.sql reads it.
type closingBlockRow struct {
	ID int64 `db:"id"`
	blockRefCols
	Size     int        `db:"size"`
	DrawnAt  time.Time  `db:"drawn_at"`
	OpenedAt *time.Time `db:"opened_at"`
	ClosedAt time.Time  `db:"closed_at"`
	Root     []byte     `db:"root"`
	Seed     []byte     `db:"seed"`
}

// closing builds the closing reports of the closed blocks (or of the one
// of row id *only), one snapshot for all.
func (a *Admin) closing(ctx context.Context, only *int64) ([]ClosingReport, error) {
	out := []ClosingReport{}
	err := pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, query("closing_blocks"), only)
		blocks, err := pgx.CollectRows(rows, pgx.RowToStructByName[closingBlockRow])
		if err != nil {
			return err
		}
		for _, b := range blocks {
			rep := ClosingReport{Block: b.blockRef().String(), StakeCents: int64(b.StakeCents), Size: b.Size, DrawnAt: b.DrawnAt,
				OpenedAt: b.OpenedAt, ClosedAt: b.ClosedAt, Commitment: hex.EncodeToString(b.Root), Seed: hex.EncodeToString(b.Seed)}
			if err := closingCounts(ctx, tx, b.ID, &rep); err != nil {
				return fmt.Errorf("block %s: %w", rep.Block, err)
			}
			out = append(out, rep)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("central: closing report: %w", err)
	}
	return out, nil
}

// closingCounts tallies a closed block's sold units (from its sales) and
// voided positions (its voided packs' unsold positions, read from its units).
func closingCounts(ctx context.Context, tx pgx.Tx, id int64, r *ClosingReport) error {
	stake := engine.Cents(r.StakeCents)
	var sold, voided engine.Tally
	perKiosk := map[string]int{}
	var kiosks []string
	rows, _ := tx.Query(ctx, query("closing_sold"), id)
	var tier int
	var kiosk string
	var n int
	var prizes int64
	_, err := pgx.ForEachRow(rows, []any{&tier, &kiosk, &n, &prizes}, func() error {
		if tier < 0 || tier >= engine.NumTiers {
			return fmt.Errorf("a sold unit of tier %d, not in the table (run central audit)", tier)
		}
		sold[tier] += n
		r.Sold += n
		r.PrizesPaidCents += prizes
		if _, ok := perKiosk[kiosk]; !ok {
			kiosks = append(kiosks, kiosk)
		}
		perKiosk[kiosk] += n
		return nil
	})
	if err != nil {
		return err
	}
	var units []byte
	if err := tx.QueryRow(ctx, query("block_units"), id).Scan(&units); err != nil {
		return err
	}
	rows, _ = tx.Query(ctx, query("closing_voided"), id)
	var first, count int
	var soldIn []int32
	_, err = pgx.ForEachRow(rows, []any{&first, &count, &soldIn}, func() error {
		isSold := map[int32]bool{}
		for _, p := range soldIn {
			isSold[p] = true
		}
		for pos := first; pos < first+count; pos++ {
			if isSold[int32(pos)] || (pos+1)*engine.UnitSize > len(units) {
				continue
			}
			t := int(units[pos*engine.UnitSize])
			if t >= engine.NumTiers {
				return fmt.Errorf("voided position %d of tier %d, not in the table (run central audit)", pos, t)
			}
			voided[t]++
			r.Voided++
			r.PrizesVoidedCents += int64(engine.PrizeTable[t].Prize(stake))
		}
		return nil
	})
	if err != nil {
		return err
	}
	table := engine.TableTally()
	r.TableMatches = true
	for t, tier := range engine.PrizeTable {
		r.Tiers = append(r.Tiers, TierCount{Multiple: tier.Multiple, PrizeCents: int64(tier.Prize(stake)), Table: table[t], Sold: sold[t], Voided: voided[t]})
		r.TableMatches = r.TableMatches && sold[t]+voided[t] == table[t]
	}
	slices.Sort(kiosks)
	for _, k := range kiosks {
		r.Kiosks = append(r.Kiosks, KioskUnits{Kiosk: k, Units: perKiosk[k]})
	}
	if r.Kiosks == nil {
		r.Kiosks = []KioskUnits{}
	}
	return nil
}
