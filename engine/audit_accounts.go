package engine

import (
	"slices"
	"time"
)

// The audit of the accounts proves SPEC §10 from the records alone: the
// account log folded again from its first record (its chain checked), and
// each account's ledger walked against it, with exact rolling sums. It
// finds: a holder under 18 at opening; a limit increase or removal that
// took effect before the cooling-off; a break shortened; a sale or a
// deposit that broke a limit in force at its time, or made during a break,
// on a listed holder, outside a session or past a reality check due; a sale
// made while a prize was held; a prize at the hand-pay threshold not held;
// a held prize paid without an identity check, or neither paid nor still
// held; an account whose state differs from its log.

// auditAccount is one account as its log says it was, through time.
type auditAccount struct {
	identity Identity
	opened   time.Time
	limits   []AccountRecord // AccLimit records, in order
	breaks   []Exclusion
	sessions []auditSession
	held     map[Ticket]*auditHeld
	// fleet: the mirror of a fleet's account (opened by the central),
	// whose limits the central keeps and its audit checks.
	fleet bool
}

type auditSession struct {
	start, end time.Time // end zero: still open
	due        []time.Time
	checks     []time.Time // the start, then each acknowledgement
}

type auditHeld struct {
	prize          Cents
	at             time.Time
	checked, paid  time.Time
	heldInLog      bool
	paidFromLedger bool
}

// limitAt is the amount of k in force at t, per the log.
func (x *auditAccount) limitAt(k LimitKey, t time.Time) (Cents, bool) {
	var v Cents
	var ok bool
	var when time.Time
	for _, r := range x.limits {
		if r.Limit == k && !r.Effective.After(t) && !r.Effective.Before(when) {
			v, ok, when = r.Amount, r.Amount > 0, r.Effective
		}
	}
	return v, ok
}

func (a *auditRun) accounts(tx ReadTx, p Protection, wallets []Wallet) error {
	accts := map[string]*auditAccount{}
	listedAt := map[string]time.Time{}
	lastOf := map[string]time.Time{} // each account's last record
	var last time.Time
	err := accountRecords(tx, func(r AccountRecord) error {
		if r.Time.Before(lastOf[r.Player]) {
			a.findf("account log record %d: dated before the account's record before it", r.Seq)
		}
		lastOf[r.Player] = r.Time
		last = maxTime(last, r.Time)
		if r.Kind == AccListed {
			listedAt[r.Text] = r.Time
			return nil
		}
		x := accts[r.Player]
		if x == nil && r.Kind != AccOpened && r.Kind != AccCompleted {
			a.findf("account log record %d (%s): account %s was never opened", r.Seq, r.Kind, r.Player)
			return nil
		}
		switch r.Kind {
		case AccOpened, AccCompleted:
			if x != nil {
				a.findf("account log record %d: account %s opened twice", r.Seq, r.Player)
			}
			x = &auditAccount{identity: r.Identity, opened: r.Time, held: map[Ticket]*auditHeld{}, fleet: r.Actor == ActorCentral}
			accts[r.Player] = x
			if r.Identity.AgeAt(r.Time) < MinAge {
				a.findf("account %s: holder born %s was under %d at opening", r.Card.Spaced(), r.Identity.Born.Format(time.DateOnly), MinAge)
			}
		case AccLimit:
			cur, has := x.limitAt(r.Limit, r.Time)
			raise := r.Amount == 0 || has && r.Amount > cur
			if raise && r.Effective.Sub(r.Time) < p.CoolingOff {
				a.findf("account %s: %s raised to %s on %s, effective after %s only (cooling-off %s)", r.Player, r.Limit, r.Amount,
					r.Time.Format(time.RFC3339), r.Effective.Sub(r.Time), p.CoolingOff)
			}
			x.limits = append(x.limits, r)
		case AccBreak:
			e := Exclusion{Since: r.Time, Until: r.Until, Indefinite: r.Until.IsZero()}
			for _, b := range x.breaks {
				if b.Active(r.Time) && e.endsBefore(b) {
					a.findf("account %s: break of %s shortened", r.Player, r.Time.Format(time.RFC3339))
				}
			}
			x.breaks = append(x.breaks, e)
		case AccSessionStart:
			x.sessions = append(x.sessions, auditSession{start: r.Time, due: []time.Time{r.Effective}, checks: []time.Time{r.Time}})
		case AccRealityCheck, AccSessionEnd:
			n := len(x.sessions)
			if n == 0 || !x.sessions[n-1].end.IsZero() {
				a.findf("account log record %d: %s outside a session", r.Seq, r.Kind)
				return nil
			}
			s := &x.sessions[n-1]
			if r.Kind == AccSessionEnd {
				s.end = r.Time
			} else {
				s.due, s.checks = append(s.due, r.Effective), append(s.checks, r.Time)
			}
		case AccHeld:
			x.held[r.Ticket] = &auditHeld{prize: r.Amount, at: r.Time, heldInLog: true}
		case AccIdentityChecked, AccHandPaid:
			h := x.held[r.Ticket]
			if h == nil {
				a.findf("account %s: %s for ticket %s, whose prize was never held", r.Player, r.Kind, r.Ticket)
				return nil
			}
			if r.Kind == AccIdentityChecked {
				h.checked = r.Time
			} else {
				if h.checked.IsZero() {
					a.findf("account %s: prize of ticket %s paid by hand without an identity check", r.Player, r.Ticket)
				}
				h.paid = r.Time
			}
		}
		return nil
	})
	if err != nil {
		a.findf("account log: %v", err)
		return nil
	}
	for _, w := range wallets {
		x := accts[w.Player]
		if x == nil {
			continue // the demo wallet, a former wallet
		}
		if err := a.accountLedger(tx, p, w, x, listedAt); err != nil {
			return err
		}
		if err := a.accountState(tx, w.Player, x, last); err != nil {
			return err
		}
	}
	return nil
}

// accountLedger walks an account's ledger against its log.
func (a *auditRun) accountLedger(tx ReadTx, p Protection, w Wallet, x *auditAccount, listedAt map[string]time.Time) error {
	var seen []LedgerEntry // the deposits and sales so far
	name := w.Player
	return tx.Ledger(w.Player, 1, w.Seq, func(l LedgerEntry) error {
		t := l.Time
		if l.Kind == LedgerPayout {
			if h := x.held[l.Ticket]; h != nil && l.Debit == h.prize && l.Ticket != (Ticket{}) {
				h.paidFromLedger = true
			}
			return nil
		}
		if l.Kind != LedgerCredit && l.Kind != LedgerSale {
			return nil
		}
		what := "deposit"
		if l.Kind == LedgerSale {
			what = "sale of " + l.Ticket.String()
		}
		at := t.Format(time.RFC3339)
		for _, b := range x.breaks {
			if t.After(b.Since) && b.Active(t) {
				a.findf("account %s: %s on %s during a break", name, what, at)
			}
		}
		if lt, ok := listedAt[x.identity.Key()]; ok && t.After(lt) {
			a.findf("account %s: %s on %s while its holder is on the exclusion list", name, what, at)
		}
		if l.Kind == LedgerSale {
			a.saleInSession(p, x, l, name)
		}
		for _, k := range LimitKeys {
			max, ok := x.limitAt(k, t)
			if !ok || (k.Kind == LimitDeposit) != (l.Kind == LedgerCredit) {
				continue // a deposit counts for the deposit limits, a sale for the others
			}
			if used := exactUse(seen, l, k); used > max {
				a.findf("account %s: %s on %s took %s to %s, over its limit %s", name, what, at, k, used, max)
			}
		}
		seen = append(seen, l)
		return nil
	})
}

// exactUse is what the window of k counts with l made: the deposits or
// stakes in the window, l's included; for a loss, the stakes less the
// prizes before l's (a unit is allowed while its loss would fit).
func exactUse(seen []LedgerEntry, l LedgerEntry, k LimitKey) (sum Cents) {
	from := l.Time.Add(-k.Window.Duration())
	for _, e := range append(seen, l) {
		if !e.Time.After(from) {
			continue
		}
		switch {
		case k.Kind == LimitDeposit && e.Kind == LedgerCredit:
			sum += e.Credit
		case k.Kind == LimitStake && e.Kind == LedgerSale:
			sum += e.Debit
		case k.Kind == LimitLoss && e.Kind == LedgerSale:
			sum += e.Debit
			if e != l {
				sum -= e.Credit
			}
		}
	}
	return sum
}

// saleInSession checks a sale against the sessions, the reality checks and
// the prizes held.
func (a *auditRun) saleInSession(p Protection, x *auditAccount, l LedgerEntry, name string) {
	t, at := l.Time, l.Time.Format(time.RFC3339)
	i := slices.IndexFunc(x.sessions, func(s auditSession) bool { return !t.Before(s.start) && (s.end.IsZero() || !t.After(s.end)) })
	if i < 0 {
		a.findf("account %s: sale of %s on %s outside any session", name, l.Ticket, at)
	} else {
		s := x.sessions[i]
		due := s.due[0]
		for j, c := range s.checks {
			if !c.After(t) {
				due = s.due[j]
			}
		}
		if !t.Before(due) {
			a.findf("account %s: sale of %s on %s after the reality check due on %s", name, l.Ticket, at, due.Format(time.RFC3339))
		}
	}
	for tk, h := range x.held {
		if tk != l.Ticket && h.at.Before(t) && (h.paid.IsZero() || h.paid.After(t)) {
			a.findf("account %s: sale of %s on %s while the prize of %s was held", name, l.Ticket, at, tk)
		}
	}
	if prize := l.Credit; prize >= p.HandpayThreshold && x.held[l.Ticket] == nil {
		a.findf("account %s: prize %s of %s not held for an attendant (hand-pay threshold %s)", name, prize, l.Ticket, p.HandpayThreshold)
	}
}

// accountState compares the account as stored with its log: the limits in
// force, the break, the prizes held.
func (a *auditRun) accountState(tx ReadTx, player string, x *auditAccount, now time.Time) error {
	st, ok, err := readAccount(tx, player)
	if err != nil || !ok {
		if err == nil {
			a.findf("account %s: in the log, not in the store", player)
		}
		return err
	}
	now = maxTime(now, st.Clock)
	for _, k := range LimitKeys {
		if x.fleet {
			break // the central's
		}
		want, wok := x.limitAt(k, now)
		got, gok := st.Limit(k, now)
		if want != got || wok != gok {
			a.findf("account %s: %s is %s in the store, %s per its log", player, k, got, want)
		}
	}
	var logBreak Exclusion
	if n := len(x.breaks); n > 0 {
		logBreak = x.breaks[n-1]
	}
	if st.Break.Active(now) != logBreak.Active(now) || st.Break.Indefinite != logBreak.Indefinite || !st.Break.Until.Equal(logBreak.Until) {
		a.findf("account %s: its break in the store differs from its log", player)
	}
	for tk, h := range x.held {
		stillHeld := slices.ContainsFunc(st.Held, func(s HeldPrize) bool { return s.Ticket == tk && s.Prize == h.prize })
		switch {
		case h.paid.IsZero() && !stillHeld:
			a.findf("account %s: prize of %s neither paid nor held", player, tk)
		case !h.paid.IsZero() && !h.paidFromLedger:
			a.findf("account %s: prize of %s recorded paid, no payout in the ledger", player, tk)
		}
	}
	if len(st.Held) > len(x.held) {
		a.findf("account %s: %d prizes held in the store, %d in its log", player, len(st.Held), len(x.held))
	}
	return nil
}
