package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode"

	"github.com/rs/zerolog"
)

// DemoPlayer is the wallet of the offline demo; it receives the demo funds
// (Config.DemoFunds) the first time it is used.
const DemoPlayer = "demo"

// ActorEngine names the engine itself in the ledger: the demo funds it
// grants when the demo wallet opens.
const ActorEngine = "engine"

// Cash holds the players' wallets: balances, cash-in and cash-out. Every
// movement is a ledger entry.
type Cash struct {
	w          *writer
	demoFunds  Cents
	demoOnly   bool // Config.DemoOnly
	protection Protection
}

// Balance is the player's available funds (opening the demo wallet if needed).
func (c *Cash) Balance(ctx context.Context, player string) (Cents, error) {
	w, err := c.Wallet(ctx, player)
	return w.Balance, err
}

// Wallet reads the player's wallet; a player never seen has an empty one.
func (c *Cash) Wallet(ctx context.Context, player string) (Wallet, error) {
	if err := checkPlayer(player); err != nil {
		return Wallet{}, err
	}
	var w Wallet
	var ok bool
	err := c.w.view(ctx, func(tx ReadTx) (err error) {
		w, ok, err = tx.Wallet(player)
		return err
	})
	if err != nil || ok || player != DemoPlayer {
		if !ok {
			w = Wallet{Player: player}
		}
		return w, err
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	err = c.w.update(ctx, func(tx *journalTx) (err error) {
		w, err = openWallet(tx, player, c.w.now().UTC(), c.demoFunds, c.w.log)
		return err
	})
	return w, err
}

// Credit adds amount to the player's funds (cash-in) and returns the entry.
func (c *Cash) Credit(ctx context.Context, player string, amount Cents, actor string) (LedgerEntry, error) {
	return c.move(ctx, player, LedgerEntry{Kind: LedgerCredit, Credit: amount, Actor: actor}, nil)
}

// Payout takes amount from the player's funds (cash-out); never below zero.
func (c *Cash) Payout(ctx context.Context, player string, amount Cents, actor string) (LedgerEntry, error) {
	return c.move(ctx, player, LedgerEntry{Kind: LedgerPayout, Debit: amount, Actor: actor}, nil)
}

// move writes one ledger entry; also, if set, writes more in the same
// transaction (the operator log's record of the movement). Refused with an
// *AmountError or ErrInsufficientFunds, nothing moved.
func (c *Cash) move(ctx context.Context, player string, l LedgerEntry, also func(*journalTx, LedgerEntry) error) (LedgerEntry, error) {
	if err := checkPlayer(player); err != nil {
		return l, err
	}
	if err := checkAmount(l.Credit + l.Debit); err != nil {
		return l, err
	}
	if c.demoOnly {
		return l, ErrDemoOnly
	}
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	err := c.w.update(ctx, func(tx *journalTx) error {
		now := c.w.now().UTC()
		w, err := openWallet(tx, player, now, c.demoFunds, c.w.log)
		if err != nil {
			return err
		}
		g, err := c.protect(tx, w, l, now)
		if err != nil {
			return err
		}
		if have := w.Balance - g.held(); have < l.Debit {
			return fmt.Errorf("%w: balance %s (held for an attendant %s), payout %s", ErrInsufficientFunds, w.Balance, g.held(), l.Debit)
		}
		l.Time = g.time(now)
		l = w.move(l)
		g.deposited(l.Credit)
		g.paid(w.Balance)
		if err := g.keep(tx); err != nil {
			return err
		}
		if err := tx.PutLedger(l); err != nil {
			return err
		}
		if also != nil {
			if err := also(tx, l); err != nil {
				return err
			}
		}
		return tx.PutWallet(w)
	})
	if err != nil {
		c.w.log.Warn().Str("player", player).Str("kind", l.Kind.String()).AnErr("err", err).Msg("funds movement refused")
		return l, err
	}
	c.w.log.Info().Str("player", player).Str("kind", l.Kind.String()).Int64("debit", int64(l.Debit)).
		Int64("credit", int64(l.Credit)).Int64("balance", int64(l.Balance)).Str("actor", l.Actor).Msg("funds moved")
	return l, nil
}

// protect is a movement's player-protection step, in its transaction: a
// deposit needs a complete account, not on a break nor listed, and room
// under its deposit limits; a payout is never refused by them (a break's
// balance stays payable), but a prize held is paid only by PayHeld.
func (c *Cash) protect(tx *journalTx, w Wallet, l LedgerEntry, now time.Time) (*guard, error) {
	g, err := guardFor(tx, w, c.w.fleet, c.protection, now)
	switch {
	case l.Credit == 0 && (errors.Is(err, ErrAccountIncomplete) || errors.Is(err, ErrNoAccount)):
		return nil, nil // a former wallet's balance is payable
	case err != nil || g == nil || l.Credit == 0:
		return g, err
	}
	if err := g.mayUse(tx); err != nil {
		return nil, err
	}
	return g, g.within(l.Credit, LimitDeposit)
}

// move appends a ledger entry to the wallet: it fills the entry's player,
// sequence, balance and chain link, and updates the wallet to match.
func (w *Wallet) move(l LedgerEntry) LedgerEntry {
	w.Balance += l.Credit - l.Debit
	w.Seq++
	l.Player, l.Seq, l.Balance, l.Prev = w.Player, w.Seq, w.Balance, w.Head
	w.Head = l.Hash()
	return l
}

// openWallet reads a player's wallet inside a write transaction, opening
// the demo wallet with demo funds on first use.
func openWallet(tx Tx, player string, now time.Time, demo Cents, log zerolog.Logger) (Wallet, error) {
	w, ok, err := tx.Wallet(player)
	if err != nil || ok {
		return w, err
	}
	w = Wallet{Player: player}
	if player == DemoPlayer && demo > 0 {
		l := w.move(LedgerEntry{Time: now, Kind: LedgerGrant, Credit: demo, Actor: ActorEngine})
		if err := tx.PutLedger(l); err != nil {
			return w, err
		}
		if err := tx.PutWallet(w); err != nil {
			return w, err
		}
		log.Info().Str("player", player).Int64("amount", int64(demo)).Msg("demo wallet opened")
	}
	return w, nil
}

func checkPlayer(p string) error {
	if p == "" || len(p) > 64 {
		return fmt.Errorf("%w: %q (1 to 64 characters)", ErrBadPlayer, p)
	}
	for _, r := range p {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("%w: %q (no spaces or control characters)", ErrBadPlayer, p)
		}
	}
	return nil
}
