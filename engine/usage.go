package engine

import (
	"slices"
	"time"
)

// usage is what an account moved over the last 30 days, as the limits count
// it, in buckets: one per minute for the last hour, per ten minutes for the
// last day, per hour before, so that it stays small (under a thousand
// buckets) whatever the player does. A bucket keeps the first and last
// times of its movements; a deposit or a stake is counted while its
// bucket's last movement is in the window, a prize only while its bucket's
// first is: the kiosk never counts less than the exact rolling sums (the
// audit recomputes those from the ledger), at worst a bucket's span more.
type usage []bucket

type bucket struct {
	First, Last time.Time // to the second: First rounded down, Last up
	Deposit     Cents
	Stake       Cents
	Won         Cents
}

// horizon is the longest window: older movements count nowhere.
const horizon = 30 * 24 * time.Hour

// span is how wide a bucket of movements of age old may grow.
func span(old time.Duration) time.Duration {
	switch {
	case old < time.Hour:
		return time.Minute
	case old < 24*time.Hour:
		return 10 * time.Minute
	}
	return time.Hour
}

// add counts a movement at t (the account's time: never before the last).
func (u *usage) add(t time.Time, deposit, stake, won Cents) {
	first, last := t.Truncate(time.Second), t.Truncate(time.Second)
	if !last.Equal(t) {
		last = last.Add(time.Second)
	}
	b := *u
	if n := len(b); n > 0 && b[n-1].First.Truncate(time.Minute).Equal(first.Truncate(time.Minute)) {
		b[n-1].Last = maxTime(b[n-1].Last, last)
		b[n-1].Deposit += deposit
		b[n-1].Stake += stake
		b[n-1].Won += won
	} else {
		b = append(b, bucket{First: first, Last: last, Deposit: deposit, Stake: stake, Won: won})
	}
	*u = b.compact(t)
}

// compact drops what no window counts at t and merges old neighbours.
func (b usage) compact(t time.Time) usage {
	b = slices.DeleteFunc(b, func(k bucket) bool { return !k.Last.After(t.Add(-horizon)) })
	out := b[:0]
	for _, k := range b {
		if n := len(out); n > 0 {
			p := &out[n-1]
			w := span(t.Sub(k.Last))
			if p.First.Truncate(w).Equal(k.First.Truncate(w)) && k.Last.Sub(p.First) <= w {
				p.Last = maxTime(p.Last, k.Last)
				p.Deposit, p.Stake, p.Won = p.Deposit+k.Deposit, p.Stake+k.Stake, p.Won+k.Won
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

// used is what k's window counts at t.
func (b usage) used(k LimitKey, t time.Time) (sum Cents) {
	from := t.Add(-k.Window.Duration())
	for _, x := range b {
		in := x.Last.After(from)
		switch {
		case !in:
		case k.Kind == LimitDeposit:
			sum += x.Deposit
		case k.Kind == LimitStake:
			sum += x.Stake
		default:
			sum += x.Stake
			if x.First.After(from) {
				sum -= x.Won
			}
		}
	}
	return sum
}

// frees is the first time from t when amount fits under max in k's window,
// counting only the movements made; zero if never (amount alone is over).
func (b usage) frees(k LimitKey, t time.Time, max, amount Cents) time.Time {
	if amount > max {
		return time.Time{}
	}
	w := k.Window.Duration()
	times := []time.Time{t}
	for _, x := range b {
		times = append(times, x.Last.Add(w), x.First.Add(w))
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	for _, at := range times {
		if !at.Before(t) && b.used(k, at)+amount <= max {
			return at
		}
	}
	return time.Time{}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (b usage) encode(e *encoder) {
	e.u32(uint32(len(b)))
	for _, k := range b {
		e.u32(uint32(k.First.Unix()))
		e.u32(uint32(k.Last.Unix()))
		e.i64(int64(k.Deposit))
		e.i64(int64(k.Stake))
		e.i64(int64(k.Won))
	}
}

func decodeUsage(d *decoder) usage {
	n := int(d.u32())
	if d.err != nil || n*32 > len(d.b) {
		d.err = ErrCorrupt
		return nil
	}
	b := make(usage, n)
	for i := range b {
		b[i].First = time.Unix(int64(d.u32()), 0).UTC()
		b[i].Last = time.Unix(int64(d.u32()), 0).UTC()
		b[i].Deposit, b[i].Stake, b[i].Won = Cents(d.i64()), Cents(d.i64()), Cents(d.i64())
	}
	return b
}
