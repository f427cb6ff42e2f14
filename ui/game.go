// Package ui is the Fyne kiosk window of Star Fortune: the tilted board, the
// pucks, JOUER and the BONUS step, the funds and the history. It draws what
// the engine decided; it never decides an outcome itself.
package ui

import (
	"context"
	"time"

	"starfortune/engine"
)

// Game is what the window needs of the engine. *engine.Service satisfies it;
// tests may stand in their own. A Game that is also an Operator opens the
// operator panel; otherwise the panel is unavailable.
type Game interface {
	// Sell sells units durably; the window always asks for one.
	Sell(ctx context.Context, req engine.SellRequest) ([]engine.Sale, error)
	// Pick records the slot chosen for a drop before that drop is shown.
	Pick(ctx context.Context, t engine.Ticket, drop, slot int) (engine.Sale, error)
	// Go records the GO of a BONUS step before its value is shown.
	Go(ctx context.Context, t engine.Ticket, drop int) (engine.Sale, error)
	Balance(ctx context.Context, player string) (engine.Cents, error)
	// History pages the player's units, newest first.
	History(ctx context.Context, player string, before uint64, limit int) ([]engine.Sale, uint64, error)
	// Unfinished is the last unit if its reveal was interrupted.
	Unfinished(ctx context.Context, player string) (engine.Sale, bool, error)
	// Health is why the terminal may not sell (integrity check failed), or nil.
	Health() error
}

var _ Game = (*engine.Service)(nil)

// Accounts is what the window needs of the engine when real money is
// played from player accounts (SPEC §10): a player logs in with card and
// PIN, plays the account's wallet within its protections, sets limits and
// takes breaks. *engine.Service satisfies it. The player acts as
// engine.ActorPlayer.
type Accounts interface {
	Game
	// OpenSession logs in: *engine.CardError, engine.ErrUnknownCard,
	// *engine.PlayerPINError, engine.ErrCardLocked, *engine.ExcludedError,
	// engine.ErrListed, engine.ErrAccountIncomplete.
	OpenSession(ctx context.Context, card engine.Card, pin string) (engine.Account, error)
	// CloseSession logs out (the player's button, or the kiosk's idle logout).
	CloseSession(ctx context.Context, player, actor string) (engine.Account, error)
	// RealityCheck records that the player read the reality check.
	RealityCheck(ctx context.Context, player string) (engine.Account, error)
	// SetLimit lowers a limit at once, or asks an increase or a removal
	// that applies at the change's Effective time.
	SetLimit(ctx context.Context, actor, player string, k engine.LimitKey, amount engine.Cents) (engine.PendingLimit, error)
	// TakeBreak excludes the player for the break's length and ends the session.
	TakeBreak(ctx context.Context, actor, player string, b engine.Break) (engine.Exclusion, error)
	// Account reads the account as it stands now.
	Account(ctx context.Context, player string) (engine.Account, error)
	Protection() engine.Protection
}

var _ Accounts = (*engine.Service)(nil)

// Options configure the window.
type Options struct {
	// Player is the wallet played without login (engine.DemoPlayer when
	// empty), unless the game is served with Terminal.ServeAccounts: the
	// players then log in and play their own accounts' wallets.
	Player string
	// Fullscreen runs full screen, asks before closing and shows the
	// attract animation when nobody plays.
	Fullscreen bool
	// KioskID is the kiosk of a fleet, named in the window's title ("Star
	// Fortune — k1") so that two windows side by side tell which is
	// which. Empty: "Star Fortune".
	KioskID string
	// FleetRefresh is how often the operator panel's Fleet tab reads the
	// central again while it is shown: 0 means 5 s, a negative value never
	// (tests, whose timers must not outlive them).
	FleetRefresh time.Duration
	// IdleTimeout starts the attract animation after this long without
	// input; 0 means 60 s in kiosk mode and never otherwise.
	IdleTimeout time.Duration
	// Language of the labels ("fr" when empty).
	Language string
	// Version, Commit and BinarySHA256 identify the running program; the
	// operator panel shows them (program authentication on demand).
	Version, Commit string
	// BinarySHA256 is called when the operator panel shows the hash: it
	// takes tens of milliseconds, which the window does not wait for.
	BinarySHA256 func() string
	// CornerHold is how long the top-left corner must be held to ask for
	// the operator PIN on a touch screen (0: 2 s).
	CornerHold time.Duration
	// ExportDir receives the operator panel's CSV exports (a temporary
	// directory when empty).
	ExportDir string
	// Sounds plays the game's sounds; nil is silence.
	Sounds Sounds
}

func (o Options) withDefaults() Options {
	if o.Player == "" {
		o.Player = engine.DemoPlayer
	}
	if o.IdleTimeout == 0 && o.Fullscreen {
		o.IdleTimeout = 60 * time.Second
	}
	if o.FleetRefresh == 0 {
		o.FleetRefresh = 5 * time.Second
	}
	if o.CornerHold <= 0 {
		o.CornerHold = 2 * time.Second
	}
	if o.Language == "" {
		o.Language = "fr"
	}
	if o.Sounds == nil {
		o.Sounds = silence{}
	}
	return o
}

// engineTimeout bounds one engine call: a store that hangs must end in an
// error message, not a frozen kiosk.
const engineTimeout = 15 * time.Second
