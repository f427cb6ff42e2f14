package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Accounts holds the player accounts (SPEC §10): an attendant opens them,
// players log in with card and PIN, set limits and take breaks, attendants
// import the exclusion list and pay the prizes held. Every change is one
// durable transaction with its records in the account log. The caller
// names who acts: "player" at the kiosk, the attendant otherwise.
type Accounts struct {
	w          *writer
	p          Protection
	iterations int  // of new PIN hashes
	demoOnly   bool // the demo's data directory: no real money, no account
	// kiosk is a fleet's kiosk's side of the fleet (nil: a lone kiosk),
	// whose central keeps the accounts and whose sync loop returns and
	// renews the leases.
	kiosk *Fleet
}

// central keeps a fleet's accounts: nil on a lone kiosk, or a fleet's
// whose central keeps none.
func (pl *Accounts) central() PlayerCentral {
	if pl.kiosk == nil {
		return nil
	}
	return pl.kiosk.players
}

// Protection is the protection in force.
func (pl *Accounts) Protection() Protection { return pl.p }

// OpenRequest is what an attendant gives to open an account (or complete a
// former wallet): the holder's identity, the limits the player chose (the
// weekly deposit and stake limits at least), and the card's PIN.
type OpenRequest struct {
	Identity Identity
	Limits   Limits
	PIN      string
}

// ActorPlayer names the player acting at the kiosk in the account log.
const ActorPlayer = "player"

// CheckCardPIN says why pin cannot be a card PIN (ErrPlayerPINRule), or nil:
// 4 to 8 digits, not one digit repeated, not in sequence, not a group
// repeated.
func CheckCardPIN(pin string) error {
	switch {
	case len(pin) < 4 || len(pin) > 8 || !allDigits(pin):
		return fmt.Errorf("%w: %d characters given", ErrPlayerPINRule, len(pin))
	case strings.Count(pin, pin[:1]) == len(pin) || inSequence(pin) || repeated(pin):
		return fmt.Errorf("%w: too easy to guess", ErrPlayerPINRule)
	}
	return nil
}

// Check refuses an opening request as Open does before it opens anything
// (the holder's identity and age, the limits, the card's PIN), at now: a
// fleet's central opens its accounts with the same rules.
func (r OpenRequest) Check(now time.Time) error {
	if err := r.Identity.check(now); err != nil {
		return err
	}
	for _, k := range LimitKeys {
		v, ok := r.Limits[k]
		if k.Mandatory() && (!ok || v <= 0) {
			return fmt.Errorf("%w: %s", ErrLimitRequired, k)
		}
		if ok && (v <= 0 || v > MaxAmount) {
			return fmt.Errorf("%w: %s %s", ErrBadLimit, k, v)
		}
	}
	for k := range r.Limits {
		if !k.valid() {
			return fmt.Errorf("%w: %v", ErrBadLimit, k)
		}
	}
	return CheckCardPIN(r.PIN)
}

// change runs fn in one durable transaction with the account log open, and
// logs a refusal.
func (pl *Accounts) change(ctx context.Context, what string, fn func(tx *journalTx, log *accountLog, now time.Time) error) error {
	pl.w.mu.Lock()
	defer pl.w.mu.Unlock()
	err := pl.w.update(ctx, func(tx *journalTx) error {
		return fn(tx, &accountLog{tx: tx}, pl.w.now().UTC())
	})
	if err != nil {
		pl.w.log.Warn().Str("change", what).AnErr("err", err).Msg("account change refused")
	} else {
		pl.w.log.Info().Str("change", what).Msg("account changed")
	}
	return err
}

// notInFleet refuses an attendant's account changes on a fleet's kiosk: a
// player's accounts, limits and breaks are fleet-wide, kept by the
// central (`central players`).
func (pl *Accounts) notInFleet() error {
	if pl.kiosk != nil {
		return fmt.Errorf("%w: player accounts of a fleet are kept by the central", ErrNoAccount)
	}
	return nil
}

// inFleet says whether the accounts are a fleet's, the central's; a
// fleet's kiosk whose central keeps none refuses them.
func (pl *Accounts) inFleet() (bool, error) {
	if pl.kiosk != nil && pl.central() == nil {
		return true, pl.notInFleet()
	}
	return pl.kiosk != nil, nil
}

// Open opens an account for a new holder and issues its card.
func (pl *Accounts) Open(ctx context.Context, actor string, req OpenRequest) (Account, error) {
	return pl.open(ctx, actor, "", false, req)
}

// Complete makes a wallet from before accounts an account: its holder
// recorded, a card issued, its limits and PIN set. Its balance is untouched.
func (pl *Accounts) Complete(ctx context.Context, actor, player string, req OpenRequest) (Account, error) {
	if player == "" || player == DemoPlayer {
		return Account{}, fmt.Errorf("%w: %q is not a former wallet", ErrBadPlayer, player)
	}
	return pl.open(ctx, actor, player, true, req)
}

// open opens an account on the wallet player ("": a new wallet named by the
// card), a former wallet when former.
func (pl *Accounts) open(ctx context.Context, actor, player string, former bool, req OpenRequest) (Account, error) {
	if err := pl.notInFleet(); err != nil {
		return Account{}, err
	}
	if pl.demoOnly {
		return Account{}, fmt.Errorf("%w: no player account on the demo's data directory", ErrDemoOnly)
	}
	if err := req.Check(pl.w.now().UTC()); err != nil {
		return Account{}, err
	}
	h, err := hashPIN(req.PIN, pl.iterations) // slow: before the writer's lock
	if err != nil {
		return Account{}, err
	}
	var a Account
	err = pl.change(ctx, "open", func(tx *journalTx, log *accountLog, now time.Time) error {
		key := req.Identity.Key()
		if l, err := listed(tx, key); err != nil || l {
			if err == nil {
				err = &IdentityError{Problem: IdentityListed, Input: key}
			}
			return err
		}
		if taken, err := playerOfDocument(tx, key); err != nil || taken != "" {
			if err == nil {
				err = &IdentityError{Problem: IdentityTaken, Input: key}
			}
			return err
		}
		kind := AccOpened
		if player != "" {
			if err := checkPlayer(player); err != nil {
				return err
			}
			if _, has, err := readAccount(tx, player); err != nil || has {
				if err == nil {
					err = fmt.Errorf("%w: %s already has an account", ErrBadPlayer, player)
				}
				return err
			}
		}
		if former {
			if w, _, err := tx.Wallet(player); err != nil || w.Seq == 0 {
				if err == nil {
					err = fmt.Errorf("%w: no wallet %q with a history", ErrBadPlayer, player)
				}
				return err
			}
			kind = AccCompleted
		}
		n, err := nextCard(tx)
		if err != nil {
			return err
		}
		card := NewCard(n)
		if player == "" {
			player = string(card)
		}
		a = Account{Player: player, Card: card, Identity: req.Identity, Opened: now, OpenedBy: actor, Complete: true,
			PINHash: h, Limits: Limits{}, Clock: now}
		if _, err := log.append(AccountRecord{Time: now, Kind: kind, Player: player, Actor: actor, Identity: req.Identity, Card: card}); err != nil {
			return err
		}
		for _, k := range LimitKeys {
			if v, ok := req.Limits[k]; ok {
				a.Limits[k] = v
				if _, err := log.append(AccountRecord{Time: now, Kind: AccLimit, Player: player, Actor: actor, Limit: k, Amount: v, Effective: now}); err != nil {
					return err
				}
			}
		}
		if _, err := log.append(AccountRecord{Time: now, Kind: AccPIN, Player: player, Actor: actor}); err != nil {
			return err
		}
		if err := tx.PutSetting(cardPrefix+string(card), []byte(player)); err != nil {
			return err
		}
		if err := tx.PutSetting(documentPrefix+key, []byte(player)); err != nil {
			return err
		}
		if _, ok, err := tx.Wallet(player); err != nil {
			return err
		} else if !ok {
			if err := tx.PutWallet(Wallet{Player: player}); err != nil {
				return err
			}
		}
		return putAccount(tx, a)
	})
	return a, err
}

// documentPrefix + identity key: the account that holds the document.
const documentPrefix = "document/"

func playerOfDocument(tx ReadTx, key string) (string, error) {
	v, _, err := tx.Setting(documentPrefix + key)
	return string(v), err
}

// nextCard numbers the next card issued.
func nextCard(tx *journalTx) (uint64, error) {
	v, _, err := tx.Setting(accountCounter)
	if err != nil {
		return 0, err
	}
	n := uint64(0)
	if len(v) > 0 {
		if n, err = strconv.ParseUint(string(v), 10, 64); err != nil {
			return 0, fmt.Errorf("%w: card counter %q", ErrCorrupt, v)
		}
	}
	n++
	return n, tx.PutSetting(accountCounter, []byte(strconv.FormatUint(n, 10)))
}

// Account reads the account of a wallet as it stands at now. A wallet from
// before accounts reads as an account not completed; a player never seen is
// ErrNoAccount.
func (pl *Accounts) Account(ctx context.Context, player string) (Account, error) {
	var a Account
	err := pl.w.view(ctx, func(tx ReadTx) (err error) { a, err = accountOf(tx, player); return err })
	if err == nil {
		a.settle(a.at(pl.w.now().UTC()))
	}
	return a, err
}

// ByCard reads the account a card opens.
func (pl *Accounts) ByCard(ctx context.Context, c Card) (Account, error) {
	var player string
	if err := pl.w.view(ctx, func(tx ReadTx) (err error) { player, err = playerOfCard(tx, c); return err }); err != nil {
		return Account{}, err
	}
	return pl.Account(ctx, player)
}

func accountOf(tx ReadTx, player string) (Account, error) {
	a, ok, err := readAccount(tx, player)
	if err != nil || ok {
		return a, err
	}
	if _, ok, err = tx.Wallet(player); err != nil {
		return Account{}, err
	}
	if !ok || player == DemoPlayer {
		return Account{}, fmt.Errorf("%w: %s", ErrNoAccount, player)
	}
	return Account{Player: player, Limits: Limits{}}, nil
}

// ListAccounts lists every account, and the wallets from before accounts as
// accounts not completed, by wallet name (the demo wallet left out).
func (pl *Accounts) ListAccounts(ctx context.Context) ([]Account, error) {
	var out []Account
	err := pl.w.view(ctx, func(tx ReadTx) error {
		return tx.Wallets(func(w Wallet) error {
			if w.Player == DemoPlayer {
				return nil
			}
			a, err := accountOf(tx, w.Player)
			if err != nil {
				return err
			}
			out = append(out, a)
			return nil
		})
	})
	now := pl.w.now().UTC()
	for i := range out {
		out[i].settle(out[i].at(now))
	}
	return out, err
}

// OpenSession opens a session on the account of card if pin is its PIN and the
// account may play: complete, not on a break, its holder not listed. A
// wrong PIN is a *PlayerPINError until the tries run out, then the card is
// locked (ErrCardLocked) until an attendant unlocks it; the count survives
// restarts. A session left open (a crash, a power cut) is closed first.
func (pl *Accounts) OpenSession(ctx context.Context, c Card, pin string) (Account, error) {
	return pl.login(ctx, c, pin, true)
}

// Authenticate checks card and PIN as OpenSession does (a wrong PIN counts
// towards the lockout), without opening a session: a deposit at the desk.
// On a fleet's kiosk it opens one, whose lease the deposit is counted
// against: the caller closes it (CloseSession) once the deposit is made.
func (pl *Accounts) Authenticate(ctx context.Context, c Card, pin string) (Account, error) {
	return pl.login(ctx, c, pin, false)
}

func (pl *Accounts) login(ctx context.Context, c Card, pin string, session bool) (Account, error) {
	if fleet, err := pl.inFleet(); fleet || err != nil {
		if err != nil {
			return Account{}, err
		}
		return pl.fleetLogin(ctx, c, pin) // a deposit too needs the session's lease
	}
	a, err := pl.ByCard(ctx, c)
	if err != nil {
		return Account{}, err
	}
	if a.PINLocked {
		return Account{}, ErrCardLocked
	}
	matched, err := verifyPIN(a.PINHash, pin) // slow: before the writer's lock
	if err != nil {
		return Account{}, err
	}
	var out Account
	var refusal error
	err = pl.change(ctx, "login", func(tx *journalTx, log *accountLog, now time.Time) error {
		g, err := pl.guard(tx, a.Player, now)
		if err != nil {
			return err
		}
		acct := &g.acct
		if acct.PINLocked || acct.PINHash != a.PINHash { // changed meanwhile
			return ErrCardLocked
		}
		if !matched {
			acct.PINFails++
			refusal = &PlayerPINError{Left: pl.p.PINTries - acct.PINFails}
			if acct.PINFails >= pl.p.PINTries {
				acct.PINLocked, refusal = true, ErrCardLocked
				if _, err := log.append(AccountRecord{Time: g.t, Kind: AccPINLocked, Player: acct.Player, Actor: ActorPlayer}); err != nil {
					return err
				}
			}
			return putAccount(tx, *acct)
		}
		acct.PINFails = 0
		if err := g.mayUse(tx); err != nil {
			return err
		}
		if out = *acct; !session {
			return putAccount(tx, *acct)
		}
		if err := endSession(log, acct, g.t, ActorPlayer); err != nil {
			return err
		}
		acct.Session = Session{Open: true, Start: g.t, Due: g.t.Add(pl.p.RealityCheck)}
		if _, err := log.append(AccountRecord{Time: g.t, Kind: AccSessionStart, Player: acct.Player, Actor: ActorPlayer, Effective: acct.Session.Due}); err != nil {
			return err
		}
		out = *acct
		return putAccount(tx, *acct)
	})
	if err == nil {
		err = refusal
	}
	return out, err
}

// guard reads player's account for a change at now (an account, not a
// former wallet).
func (pl *Accounts) guard(tx *journalTx, player string, now time.Time) (*guard, error) {
	if _, err := pl.inFleet(); err != nil {
		return nil, err
	}
	g, ok, err := openGuard(tx, player, pl.p, now)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s", ErrNoAccount, player)
	}
	return g, err
}

// endSession closes the session in progress, if any, with its figures.
func endSession(log *accountLog, a *Account, t time.Time, actor string) error {
	if !a.Session.Open {
		return nil
	}
	_, err := log.append(AccountRecord{Time: t, Kind: AccSessionEnd, Player: a.Player, Actor: actor, Staked: a.Session.Staked, Won: a.Session.Won})
	a.Session.Open = false
	return err
}

// update changes player's account in one transaction: fn works on the
// guard (the account at its time), and the account is written back.
func (pl *Accounts) update(ctx context.Context, what, player string, fn func(g *guard, tx *journalTx) error) (Account, error) {
	var a Account
	err := pl.change(ctx, what, func(tx *journalTx, _ *accountLog, now time.Time) error {
		g, err := pl.guard(tx, player, now)
		if err != nil {
			return err
		}
		if err := fn(g, tx); err != nil {
			return err
		}
		a = g.acct
		return putAccount(tx, g.acct)
	})
	return a, err
}

// CloseSession ends the player's session (the logout button, the idle timeout).
func (pl *Accounts) CloseSession(ctx context.Context, player, actor string) (Account, error) {
	a, err := pl.update(ctx, "logout", player, func(g *guard, tx *journalTx) error {
		if pl.central() != nil {
			if err := giveBackIn(tx, player); err != nil {
				return err
			}
		}
		return endSession(&g.log, &g.acct, g.t, actor)
	})
	if err == nil && pl.kiosk != nil {
		pl.kiosk.loop.poke() // the lease back to the central
	}
	return a, err
}

// RealityCheck records that the player acknowledged the reality check: play
// goes on for another Protection.RealityCheck.
func (pl *Accounts) RealityCheck(ctx context.Context, player string) (Account, error) {
	return pl.update(ctx, "reality-check", player, func(g *guard, _ *journalTx) error {
		s := &g.acct.Session
		if !s.Open {
			return ErrNoSession
		}
		s.Due = g.t.Add(pl.p.RealityCheck)
		_, err := g.log.append(AccountRecord{Time: g.t, Kind: AccRealityCheck, Player: g.acct.Player, Actor: ActorPlayer, Staked: s.Staked, Won: s.Won,
			Effective: s.Due})
		return err
	})
}

// SetLimit changes a limit (amount 0 removes it): a decrease applies at
// once, an increase or a removal after the cooling-off. It returns the
// change as recorded (Effective is when it applies). A change already
// waiting for the limit is a *PendingError; a mandatory limit cannot be
// removed.
func (pl *Accounts) SetLimit(ctx context.Context, actor, player string, k LimitKey, amount Cents) (PendingLimit, error) {
	var ch PendingLimit
	if !k.valid() || amount < 0 || amount > MaxAmount {
		return ch, fmt.Errorf("%w: %s %s", ErrBadLimit, k, amount)
	}
	if amount == 0 && k.Mandatory() {
		return ch, fmt.Errorf("%w: %s", ErrLimitRequired, k)
	}
	if pl.central() != nil {
		return pl.fleetSetLimit(ctx, player, k, amount)
	}
	_, err := pl.update(ctx, "limit", player, func(g *guard, _ *journalTx) error {
		a := &g.acct
		if p, ok := a.PendingFor(k, g.t); ok {
			return &PendingError{Pending: p}
		}
		cur, has := a.Limit(k, g.t)
		ch = PendingLimit{Key: k, Amount: amount, Requested: g.t, Effective: g.t}
		decrease := amount > 0 && (!has || amount < cur)
		if !decrease {
			if has && amount == cur {
				return nil // nothing changes
			}
			ch.Effective = g.t.Add(pl.p.CoolingOff)
		}
		if decrease {
			a.Limits[k] = amount
		} else {
			a.Pending = append(a.Pending, ch)
		}
		_, err := g.log.append(AccountRecord{Time: g.t, Kind: AccLimit, Player: a.Player, Actor: actor, Limit: k, Amount: amount, Effective: ch.Effective})
		return err
	})
	return ch, err
}

// TakeBreak excludes the player for the break's length from now, ending
// the session in progress. It cannot shorten a break in force.
func (pl *Accounts) TakeBreak(ctx context.Context, actor, player string, b Break) (Exclusion, error) {
	if !slices.Contains(Breaks, b) {
		return Exclusion{}, fmt.Errorf("%w: %d", ErrBadBreak, b)
	}
	if pl.central() != nil {
		return pl.fleetBreak(ctx, player, b)
	}
	var e Exclusion
	_, err := pl.update(ctx, "break", player, func(g *guard, _ *journalTx) error {
		a := &g.acct
		e = b.from(g.t)
		if a.Break.Active(g.t) && e.endsBefore(a.Break) {
			return &ExcludedError{Break: a.Break, Shorter: true}
		}
		if a.Break.Active(g.t) && !a.Break.Indefinite && !e.Indefinite {
			e.Since = a.Break.Since // one break, made longer
		}
		a.Break = e
		if _, err := g.log.append(AccountRecord{Time: g.t, Kind: AccBreak, Player: a.Player, Actor: actor, Until: e.Until, Text: b.String()}); err != nil {
			return err
		}
		return endSession(&g.log, a, g.t, actor)
	})
	return e, err
}

// UnlockCard ends a card's PIN lockout (an attendant, the player present);
// with a new PIN, sets it too.
func (pl *Accounts) UnlockCard(ctx context.Context, actor, player, newPIN string) (Account, error) {
	if err := pl.notInFleet(); err != nil {
		return Account{}, err
	}
	var h string
	if newPIN != "" {
		if err := CheckCardPIN(newPIN); err != nil {
			return Account{}, err
		}
		var err error
		if h, err = hashPIN(newPIN, pl.iterations); err != nil {
			return Account{}, err
		}
	}
	return pl.update(ctx, "unlock-pin", player, func(g *guard, _ *journalTx) error {
		a := &g.acct
		a.PINFails, a.PINLocked = 0, false
		if _, err := g.log.append(AccountRecord{Time: g.t, Kind: AccPINUnlocked, Player: a.Player, Actor: actor}); err != nil {
			return err
		}
		if h == "" {
			return nil
		}
		a.PINHash = h
		_, err := g.log.append(AccountRecord{Time: g.t, Kind: AccPIN, Player: a.Player, Actor: actor})
		return err
	})
}

// importChunk is how many identity keys one transaction lists.
const importChunk = 500

// ImportExclusions puts identity keys (IdentityKey's form) on the exclusion
// list, a chunk of keys per transaction; a key listed already is skipped,
// so an import cut short is simply run again. It returns how many keys it
// added, and the accounts they close (whose sessions end).
func (pl *Accounts) ImportExclusions(ctx context.Context, actor string, keys []string) (added int, closed []string, err error) {
	if err := pl.notInFleet(); err != nil {
		return 0, nil, err
	}
	for i, k := range keys {
		if _, _, ok := strings.Cut(k, ":"); !ok || len(k) > 129 || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' }) {
			return 0, nil, fmt.Errorf("%w: exclusion list line %d: %q is not an identity key (TYPE:NUMBER)", ErrBadIdentity, i+1, k)
		}
	}
	for start := 0; start < len(keys); start += importChunk {
		chunk := keys[start:min(start+importChunk, len(keys))]
		err := pl.change(ctx, "exclusions", func(tx *journalTx, log *accountLog, now time.Time) error {
			for _, k := range chunk {
				if l, err := listed(tx, k); err != nil || l {
					if err != nil {
						return err
					}
					continue
				}
				r, err := log.append(AccountRecord{Time: now, Kind: AccListed, Actor: actor, Text: k})
				if err != nil {
					return err
				}
				if err := tx.PutSetting(listedPrefix+k, encodeU64(r.Seq)); err != nil {
					return err
				}
				added++
				player, err := playerOfDocument(tx, k)
				if err != nil || player == "" {
					if err != nil {
						return err
					}
					continue
				}
				a, _, err := readAccount(tx, player)
				if err != nil {
					return err
				}
				if err := endSession(log, &a, a.at(now), actor); err != nil {
					return err
				}
				closed = append(closed, player)
				if err := putAccount(tx, a); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return added, closed, err
		}
	}
	return added, closed, nil
}

// ParseExclusionList reads the exclusion list's CSV: one identity per line,
// "TYPE,NUMBER" or "TYPE:NUMBER"; a header line, blank lines and lines
// starting with # are skipped.
func ParseExclusionList(text string) ([]string, error) {
	var keys []string
	header := true // the first line may name the columns
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		typ, num, ok := strings.Cut(line, ",")
		if !ok {
			typ, num, ok = strings.Cut(line, ":")
		}
		typ, num = strings.Trim(strings.TrimSpace(typ), `"`), strings.Trim(strings.TrimSpace(num), `"`)
		if header && (strings.EqualFold(typ, "id_type") || strings.EqualFold(typ, "type")) {
			header = false
			continue
		}
		header = false
		if !ok || typ == "" || num == "" || strings.Contains(num, ",") {
			return nil, fmt.Errorf("%w: exclusion list line %d: %q (want TYPE,NUMBER)", ErrBadIdentity, i+1, line)
		}
		keys = append(keys, IdentityKey(typ, num))
	}
	return keys, nil
}

// CheckIdentity records that an attendant checked the identity of the
// holder of a held prize: the document seen. The prize may then be paid.
func (pl *Accounts) CheckIdentity(ctx context.Context, actor, player string, t Ticket, document string) (Account, error) {
	document = strings.TrimSpace(document)
	if document == "" || len(document) > 128 {
		return Account{}, &IdentityError{Problem: IdentityNoDocument, Input: document}
	}
	return pl.update(ctx, "identity-check", player, func(g *guard, _ *journalTx) error {
		i := slices.IndexFunc(g.acct.Held, func(h HeldPrize) bool { return h.Ticket == t })
		if i < 0 {
			return fmt.Errorf("%w: %s", ErrNotHeld, t)
		}
		h := &g.acct.Held[i]
		h.IdentityChecked, h.Document, h.CheckedBy = true, document, actor
		_, err := g.log.append(AccountRecord{Time: g.t, Kind: AccIdentityChecked, Player: g.acct.Player, Actor: actor, Ticket: t, Amount: h.Prize, Text: document})
		return err
	})
}

// PayHeld pays a held prize by hand once its holder's identity is checked:
// a payout from the wallet and the register's record, in one transaction.
// method is how it was paid ("virement", "cheque", "especes"), reference
// the transfer's or cheque's number.
func (pl *Accounts) PayHeld(ctx context.Context, actor, player string, t Ticket, method, reference string) (LedgerEntry, error) {
	method, reference = strings.TrimSpace(method), strings.TrimSpace(reference)
	if method == "" || strings.Contains(method, "|") || len(method)+len(reference) > 200 {
		return LedgerEntry{}, fmt.Errorf("%w: a payment method is required (virement, cheque...)", ErrBadAmount)
	}
	var l LedgerEntry
	_, err := pl.update(ctx, "hand-pay", player, func(g *guard, tx *journalTx) error {
		a := &g.acct
		i := slices.IndexFunc(a.Held, func(h HeldPrize) bool { return h.Ticket == t })
		if i < 0 {
			return fmt.Errorf("%w: %s", ErrNotHeld, t)
		}
		h := a.Held[i]
		if !h.IdentityChecked {
			return fmt.Errorf("%w: %s", ErrIdentityNotChecked, t)
		}
		w, ok, err := tx.Wallet(player)
		if err != nil {
			return err
		}
		if !ok || w.Balance < h.Prize {
			return fmt.Errorf("%w: balance %s, prize held %s", ErrInsufficientFunds, w.Balance, h.Prize)
		}
		l = w.move(LedgerEntry{Time: g.t, Kind: LedgerPayout, Debit: h.Prize, Ticket: t, Actor: actor})
		tx.hand = &HandPay{Document: h.Document, CheckedBy: h.CheckedBy, Method: method, Reference: reference}
		if err := tx.PutLedger(l); err != nil {
			return err
		}
		if err := tx.PutWallet(w); err != nil {
			return err
		}
		a.Held = slices.Delete(a.Held, i, i+1)
		g.paid(w.Balance)
		_, err = g.log.append(AccountRecord{Time: g.t, Kind: AccHandPaid, Player: player, Actor: actor, Ticket: t, Amount: h.Prize, Text: method + "|" + reference})
		return err
	})
	return l, err
}

// AccountLog is the account log: player's records ("" for all), oldest first.
func (pl *Accounts) AccountLog(ctx context.Context, player string) ([]AccountRecord, error) {
	var out []AccountRecord
	err := pl.w.view(ctx, func(tx ReadTx) error {
		return accountRecords(tx, func(r AccountRecord) error {
			if player == "" || r.Player == player {
				out = append(out, r)
			}
			return nil
		})
	})
	return out, err
}

// RegisterEntry is a line of the register of large wins: a prize held or
// set aside, an identity checked, a prize paid by hand, with the holder.
type RegisterEntry struct {
	Record   AccountRecord
	Holder   string
	Document string // the account's identity key
}

// Register lists the register, oldest first.
func (pl *Accounts) Register(ctx context.Context) ([]RegisterEntry, error) {
	var out []RegisterEntry
	holders := map[string]Identity{}
	err := pl.w.view(ctx, func(tx ReadTx) error {
		return accountRecords(tx, func(r AccountRecord) error {
			switch r.Kind {
			case AccOpened, AccCompleted:
				holders[r.Player] = r.Identity
			case AccHeld, AccSetAside, AccIdentityChecked, AccHandPaid:
				id := holders[r.Player]
				out = append(out, RegisterEntry{Record: r, Holder: id.Holder, Document: id.Key()})
			}
			return nil
		})
	})
	return out, err
}

// PaidMethod splits a hand-pay record's Text into method and reference.
func (r AccountRecord) PaidMethod() (method, reference string) {
	method, reference, _ = strings.Cut(r.Text, "|")
	return method, reference
}
