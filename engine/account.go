package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// A player's account (SPEC §10): who holds it, the card that opens it, the
// PIN that proves it, the limits the player set, breaks, the prizes held
// for an attendant, and the session in progress. Its funds stay in the
// wallet named by Account.Player; everything else that ever happened to it
// is a record of the account log (accountlog.go), from which the audit
// proves the protections held.

// Card is the number on a player's card: nine digits numbering the account
// and a Damm check digit, like a ticket's, so a mistyped card is told at
// once. Written "123 456 789 0" for people; digits only in files.
type Card string

// cardDigits is the number of digits of a card, check digit included.
const cardDigits = 10

// NewCard is the card of account number n (from 1).
func NewCard(n uint64) Card {
	body := fmt.Sprintf("%09d", n)
	return Card(body + string(damm(body)))
}

// Spaced is the card as printed: "123 456 789 0".
func (c Card) Spaced() string {
	s := string(c)
	if len(s) != cardDigits {
		return s
	}
	return s[0:3] + " " + s[3:6] + " " + s[6:9] + " " + s[9:]
}

// ParseCard reads a card number typed by a person: spaces and dashes are
// optional, the check digit is not.
func ParseCard(s string) (Card, error) {
	digits := typedDigits(s)
	switch {
	case !allDigits(digits) || digits == "":
		return "", &CardError{Input: s, Problem: CardNotDigits}
	case len(digits) != cardDigits:
		return "", &CardError{Input: s, Problem: CardLength}
	case damm(digits[:cardDigits-1]) != digits[cardDigits-1]:
		return "", &CardError{Input: s, Problem: CardCheckDigit}
	}
	return Card(digits), nil
}

// Identity is who holds an account, as an attendant checked it.
type Identity struct {
	Holder    string    // full name
	Born      time.Time // date of birth, midnight UTC
	DocType   string    // identity document: "CNI", "PASSEPORT", "TITRE-SEJOUR", ...
	DocNumber string
}

// Key is the identity as the exclusion list names it: the document's type
// and number, upper case, without spaces: "CNI:X4RTBPFW4".
func (id Identity) Key() string { return IdentityKey(id.DocType, id.DocNumber) }

// IdentityKey normalises a document type and number into an identity key.
func IdentityKey(docType, number string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || r == '-' || r == '.' {
				return -1
			}
			return unicode.ToUpper(r)
		}, s)
	}
	return clean(docType) + ":" + clean(number)
}

// MinAge is the age below which no account is opened.
const MinAge = 18

// ParseBirthDate reads a date of birth "YYYY-MM-DD" (or "DD/MM/YYYY"),
// refusing impossible dates (2001-02-30), dates to come and dates before 1900.
func ParseBirthDate(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	var t time.Time
	var err error
	if strings.Contains(s, "/") {
		t, err = time.Parse("02/01/2006", s)
	} else {
		t, err = time.Parse("2006-01-02", s)
	}
	switch {
	case err != nil:
		return time.Time{}, &IdentityError{Problem: IdentityBadDate, Input: s}
	case t.After(now) || t.Year() < 1900:
		return time.Time{}, &IdentityError{Problem: IdentityBadDate, Input: s}
	}
	return t, nil
}

// AgeAt is the holder's age in whole years at t.
func (id Identity) AgeAt(t time.Time) int {
	t = t.UTC()
	age := t.Year() - id.Born.Year()
	if t.Month() < id.Born.Month() || t.Month() == id.Born.Month() && t.Day() < id.Born.Day() {
		age--
	}
	return age
}

// check refuses an identity an account cannot be opened with, at now.
func (id Identity) check(now time.Time) error {
	for _, f := range []struct {
		v string
		p IdentityProblem
	}{{id.Holder, IdentityNoName}, {id.DocType, IdentityNoDocument}, {id.DocNumber, IdentityNoDocument}} {
		if strings.TrimSpace(f.v) == "" || len(f.v) > 64 || strings.ContainsFunc(f.v, unicode.IsControl) {
			return &IdentityError{Problem: f.p, Input: f.v}
		}
	}
	if id.Born.IsZero() || id.Born.After(now) || id.Born.Year() < 1900 {
		return &IdentityError{Problem: IdentityBadDate, Input: id.Born.Format(time.DateOnly)}
	}
	if id.AgeAt(now) < MinAge {
		return &IdentityError{Problem: IdentityUnderAge, Input: id.Born.Format(time.DateOnly)}
	}
	return nil
}

// LimitKind is what a limit bounds.
type LimitKind uint8

// The limits of SPEC §10.
const (
	LimitDeposit LimitKind = iota + 1 // money credited to the account
	LimitStake                        // money staked
	LimitLoss                         // stakes minus prizes
)

// Window is the rolling period a limit counts over.
type Window uint8

// The windows: 24 hours, 7 days, 30 days, rolling.
const (
	WindowDay Window = iota + 1
	WindowWeek
	WindowMonth
)

// Duration is the window's length.
func (w Window) Duration() time.Duration {
	switch w {
	case WindowDay:
		return 24 * time.Hour
	case WindowWeek:
		return 7 * 24 * time.Hour
	}
	return 30 * 24 * time.Hour
}

// LimitKey names one limit: a kind over a window.
type LimitKey struct {
	Kind   LimitKind
	Window Window
}

// LimitKeys are every limit an account may have, in the order they are
// shown; the first two (deposits and stakes over 7 days) are mandatory.
var LimitKeys = []LimitKey{
	{LimitDeposit, WindowWeek}, {LimitStake, WindowWeek},
	{LimitDeposit, WindowDay}, {LimitDeposit, WindowMonth},
	{LimitStake, WindowDay}, {LimitStake, WindowMonth},
	{LimitLoss, WindowDay}, {LimitLoss, WindowWeek}, {LimitLoss, WindowMonth},
}

// Mandatory reports whether the limit must always be set.
func (k LimitKey) Mandatory() bool { return k.Window == WindowWeek && k.Kind != LimitLoss }

func (k LimitKey) valid() bool {
	return k.Kind >= LimitDeposit && k.Kind <= LimitLoss && k.Window >= WindowDay && k.Window <= WindowMonth
}

var kindNames = map[LimitKind]string{LimitDeposit: "deposit", LimitStake: "stake", LimitLoss: "loss"}
var windowNames = map[Window]string{WindowDay: "day", WindowWeek: "week", WindowMonth: "month"}

// String is the limit's name in files and on the command line: "stake-week".
func (k LimitKey) String() string { return kindNames[k.Kind] + "-" + windowNames[k.Window] }

// ParseLimitKey reads a limit's name as String writes it.
func ParseLimitKey(s string) (LimitKey, error) {
	for _, k := range LimitKeys {
		if k.String() == strings.ToLower(strings.TrimSpace(s)) {
			return k, nil
		}
	}
	names := make([]string, len(LimitKeys))
	for i, k := range LimitKeys {
		names[i] = k.String()
	}
	return LimitKey{}, fmt.Errorf("%w: %q (one of %s)", ErrBadLimit, s, strings.Join(names, ", "))
}

// Limits are the amounts of the limits in force; a limit absent is none.
type Limits map[LimitKey]Cents

// PendingLimit is a limit's increase or removal waiting for its cooling-off.
type PendingLimit struct {
	Key       LimitKey
	Amount    Cents // 0: the limit is removed
	Requested time.Time
	Effective time.Time
}

// Exclusion is a break the player took (or an attendant recorded): no
// login, no play, no deposit until Until; forever when Indefinite.
type Exclusion struct {
	Since      time.Time
	Until      time.Time
	Indefinite bool
}

// Active reports whether the exclusion is in force at t.
func (e Exclusion) Active(t time.Time) bool {
	return e.Indefinite || !e.Since.IsZero() && t.Before(e.Until)
}

// Ends reports whether e ends no later than o (an exclusion that would end
// earlier than the one in force would shorten it).
func (e Exclusion) endsBefore(o Exclusion) bool {
	if o.Indefinite {
		return !e.Indefinite
	}
	return !e.Indefinite && e.Until.Before(o.Until)
}

// Break is a length of self-exclusion the player may choose.
type Break uint8

// The breaks of SPEC §10.
const (
	Break24h Break = iota + 1
	Break7d
	Break30d
	Break3m
	Break6m
	Break12m
	BreakIndefinite
)

// Breaks are every break, shortest first.
var Breaks = []Break{Break24h, Break7d, Break30d, Break3m, Break6m, Break12m, BreakIndefinite}

var breakNames = map[Break]string{Break24h: "24h", Break7d: "7d", Break30d: "30d", Break3m: "3m", Break6m: "6m", Break12m: "12m", BreakIndefinite: "indefinite"}

func (b Break) String() string { return breakNames[b] }

// ParseBreak reads a break's name: 24h, 7d, 30d, 3m, 6m, 12m, indefinite.
func ParseBreak(s string) (Break, error) {
	for _, b := range Breaks {
		if b.String() == strings.ToLower(strings.TrimSpace(s)) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("%w: %q (24h, 7d, 30d, 3m, 6m, 12m or indefinite)", ErrBadBreak, s)
}

// from is the exclusion the break starts at t.
func (b Break) from(t time.Time) Exclusion {
	e := Exclusion{Since: t}
	switch b {
	case Break24h:
		e.Until = t.Add(24 * time.Hour)
	case Break7d:
		e.Until = t.AddDate(0, 0, 7)
	case Break30d:
		e.Until = t.AddDate(0, 0, 30)
	case Break3m:
		e.Until = t.AddDate(0, 3, 0)
	case Break6m:
		e.Until = t.AddDate(0, 6, 0)
	case Break12m:
		e.Until = t.AddDate(1, 0, 0)
	default:
		e.Indefinite = true
	}
	return e
}

// Session is a player's time at the kiosk, from login to logout.
type Session struct {
	Open   bool
	Start  time.Time
	Due    time.Time // the next reality check: recorded with the start and each acknowledgement
	Staked Cents
	Won    Cents
}

// Net is what the session won less what it staked.
func (s Session) Net() Cents { return s.Won - s.Staked }

// HeldPrize is a prize at or above the hand-pay threshold, waiting for an
// attendant to check the holder's identity and pay it.
type HeldPrize struct {
	Ticket          Ticket
	Prize           Cents
	IdentityChecked bool
	// Document is the identity document the attendant saw, CheckedBy
	// who checked it: what the register of a fleet keeps of the check
	// (FleetMovement.Hand). Empty for a check recorded before they were
	// kept.
	Document, CheckedBy string
}

// Account is a player's account as it stands.
type Account struct {
	Player   string // the wallet: the card number, or a former named wallet
	Card     Card
	Identity Identity
	Opened   time.Time
	OpenedBy string
	// Complete is false for a wallet from before accounts: its balance is
	// payable, but it plays and takes deposits only once an attendant has
	// recorded its holder (Players.Complete).
	Complete bool

	PINHash   string
	PINFails  int
	PINLocked bool // too many wrong PINs: until an attendant unlocks it

	Limits  Limits
	Pending []PendingLimit
	Break   Exclusion
	Session Session
	// SetAside is winnings at or above the payout threshold: payable, not
	// stakeable.
	SetAside Cents
	Held     []HeldPrize
	// Clock is the latest time the account has seen: a wall clock moved
	// back does not move the account's time back (no window reopened, no
	// delay shortened). Its movements and records are dated on it.
	Clock time.Time
	usage usage
	// use is what the session used of its fleet lease (fleet_leases.go),
	// kept with the play, which every sale writes anyway.
	use leaseUse
}

// Demo reports whether the account is the offline demo's wallet.
func (a Account) Demo() bool { return a.Player == DemoPlayer }

// at is the account's time at wall time now: always after what it saw
// (by a nanosecond if the clock stood still or went back), so that its
// records and movements are in one order the audit can follow.
func (a *Account) at(now time.Time) time.Time {
	if !now.After(a.Clock) {
		now = a.Clock.Add(time.Nanosecond)
	}
	a.Clock = now
	return now
}

// Limit is the limit in force at t, and whether there is one.
func (a Account) Limit(k LimitKey, t time.Time) (Cents, bool) {
	v, ok := a.Limits[k]
	for _, p := range a.Pending {
		if p.Key == k && !p.Effective.After(t) {
			v, ok = p.Amount, p.Amount > 0
		}
	}
	return v, ok
}

// PendingFor is the change of k waiting at t, if any.
func (a Account) PendingFor(k LimitKey, t time.Time) (PendingLimit, bool) {
	for _, p := range a.Pending {
		if p.Key == k && p.Effective.After(t) {
			return p, true
		}
	}
	return PendingLimit{}, false
}

// settle makes the pending changes due at t the limits in force.
func (a *Account) settle(t time.Time) {
	keep := a.Pending[:0]
	for _, p := range a.Pending {
		if p.Effective.After(t) {
			keep = append(keep, p)
			continue
		}
		if p.Amount > 0 {
			a.Limits[p.Key] = p.Amount
		} else {
			delete(a.Limits, p.Key)
		}
	}
	a.Pending = keep
}

// HeldTotal is the sum of the prizes held for an attendant.
func (a Account) HeldTotal() (sum Cents) {
	for _, h := range a.Held {
		sum += h.Prize
	}
	return sum
}

// Used is what the window of k counts at t (the kiosk's count: a movement
// is counted until the minute after it leaves the window, never less).
func (a Account) Used(k LimitKey, t time.Time) Cents { return a.usage.used(k, t) }

// The account errors. Each refusal is a typed error the window and the
// command line word for people; these texts are for logs.
var (
	// ErrNoAccount: real-money play and deposits need an account.
	ErrNoAccount = errors.New("no account: real-money play needs a player account opened by an attendant")
	// ErrAccountIncomplete: a wallet from before accounts, not completed.
	ErrAccountIncomplete = errors.New("account not completed: an attendant must record its holder before play or deposits")
	// ErrBadCard: a card number malformed or failing its check digit.
	ErrBadCard = errors.New("bad card number")
	// ErrUnknownCard: a well-formed card no account has.
	ErrUnknownCard = errors.New("unknown card")
	// ErrBadIdentity: an identity an account cannot be opened with.
	ErrBadIdentity = errors.New("identity refused")
	// ErrPlayerPIN: the PIN typed is not the card's.
	ErrPlayerPIN = errors.New("wrong card PIN")
	// ErrCardLocked: too many wrong PINs; an attendant unlocks the card.
	ErrCardLocked = errors.New("card locked after too many wrong PINs: an attendant must unlock it")
	// ErrPlayerPINRule: a new card PIN that is not 4 to 8 digits, or easy to guess.
	ErrPlayerPINRule = errors.New("a card PIN is 4 to 8 digits, not easy to guess")
	// ErrLimit: a limit would be broken.
	ErrLimit = errors.New("limit reached")
	// ErrBadLimit: a limit name or amount that does not exist.
	ErrBadLimit = errors.New("bad limit")
	// ErrLimitPending: a change of this limit already waits its cooling-off.
	ErrLimitPending = errors.New("a change of this limit is already pending")
	// ErrLimitRequired: the mandatory limits cannot be removed.
	ErrLimitRequired = errors.New("this limit is mandatory")
	// ErrExcluded: the player is on a break.
	ErrExcluded = errors.New("player on a break (self-exclusion)")
	// ErrBadBreak: a break length that does not exist.
	ErrBadBreak = errors.New("bad break length")
	// ErrBreakShorter: a break cannot be shortened.
	ErrBreakShorter = errors.New("a break in force cannot be shortened")
	// ErrListed: the holder is on the exclusion list.
	ErrListed = errors.New("holder on the exclusion list")
	// ErrNoSession: the player is not logged in at this kiosk.
	ErrNoSession = errors.New("no session open: log in with the card and PIN")
	// ErrRealityCheck: the reality check is due and not acknowledged.
	ErrRealityCheck = errors.New("reality check due: acknowledge it to play on")
	// ErrPrizeHeld: a prize waits for an attendant; play is locked.
	ErrPrizeHeld = errors.New("exceptional prize held: an attendant must check the identity and pay it")
	// ErrNotHeld: no prize of this ticket is held for this account.
	ErrNotHeld = errors.New("no prize held for this ticket")
	// ErrIdentityNotChecked: a held prize is paid only once the identity is checked.
	ErrIdentityNotChecked = errors.New("identity not checked for this prize")
	// ErrProtection: a protection setting out of bounds.
	ErrProtection = errors.New("bad protection setting")
)

// CardProblem is what is wrong with a card number.
type CardProblem int

// The ways a card number can be wrong.
const (
	CardNotDigits  CardProblem = iota + 1 // characters other than digits, dashes and spaces
	CardLength                            // not 10 digits
	CardCheckDigit                        // the check digit does not match
)

// CardError is a card number refused by ParseCard. It matches ErrBadCard.
type CardError struct {
	Input   string
	Problem CardProblem
}

func (e *CardError) Error() string {
	return fmt.Sprintf("%v %q: %s", ErrBadCard, e.Input, map[CardProblem]string{
		CardNotDigits: "only digits", CardLength: "a card has 10 digits", CardCheckDigit: "wrong check digit"}[e.Problem])
}

// Unwrap makes errors.Is(err, ErrBadCard) true.
func (e *CardError) Unwrap() error { return ErrBadCard }

// IdentityProblem is why an identity is refused.
type IdentityProblem int

// The ways an identity can be refused.
const (
	IdentityNoName     IdentityProblem = iota + 1 // no holder's name (or over 64 characters)
	IdentityNoDocument                            // no document type or number
	IdentityBadDate                               // an impossible date of birth, or one to come
	IdentityUnderAge                              // under 18
	IdentityListed                                // on the exclusion list
	IdentityTaken                                 // another account has this document
)

// IdentityError is an identity refused at opening. It matches ErrBadIdentity
// (and ErrListed for IdentityListed).
type IdentityError struct {
	Problem IdentityProblem
	Input   string
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("%v: %s %q", ErrBadIdentity, map[IdentityProblem]string{
		IdentityNoName: "no holder's name", IdentityNoDocument: "no identity document", IdentityBadDate: "impossible date of birth",
		IdentityUnderAge: "under 18", IdentityListed: "on the exclusion list", IdentityTaken: "document already holds an account"}[e.Problem], e.Input)
}

// Unwrap makes errors.Is(err, ErrBadIdentity) true, and ErrListed for a
// listed identity.
func (e *IdentityError) Unwrap() []error {
	if e.Problem == IdentityListed {
		return []error{ErrBadIdentity, ErrListed}
	}
	return []error{ErrBadIdentity}
}

// LimitError is a sale or a deposit refused by a limit. It matches ErrLimit.
type LimitError struct {
	Limit  LimitKey
	Max    Cents // the limit in force
	Used   Cents // what its window counts now
	Amount Cents // what was asked
	// Frees is when the amount fits again: zero when it never does (it is
	// above the limit), or when the kiosk cannot tell (a fleet's limits
	// count every kiosk's movements, which the central alone holds).
	Frees time.Time
}

// Never reports whether the amount never fits: it is above the limit.
func (e *LimitError) Never() bool { return e.Amount > e.Max }

func (e *LimitError) Error() string {
	frees := "unknown here (the central's)"
	switch {
	case e.Never():
		frees = "never: above the limit"
	case !e.Frees.IsZero():
		frees = e.Frees.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("%v: %s limit %s, used %s, asked %s, room from %s", ErrLimit, e.Limit, e.Max, e.Used, e.Amount, frees)
}

// Unwrap makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Unwrap() error { return ErrLimit }

// PendingError is a limit change refused because one already waits.
// It matches ErrLimitPending.
type PendingError struct{ Pending PendingLimit }

func (e *PendingError) Error() string {
	return fmt.Sprintf("%v: %s to %s from %s", ErrLimitPending, e.Pending.Key, e.Pending.Amount, e.Pending.Effective.UTC().Format(time.RFC3339))
}

// Unwrap makes errors.Is(err, ErrLimitPending) true.
func (e *PendingError) Unwrap() error { return ErrLimitPending }

// ExcludedError is a login, play or deposit refused during a break, or a
// break refused because it would end before the one in force. It matches
// ErrExcluded (or ErrBreakShorter).
type ExcludedError struct {
	Break   Exclusion
	Shorter bool // the refusal of a shorter break
}

func (e *ExcludedError) Error() string {
	until := "indefinite"
	if !e.Break.Indefinite {
		until = "until " + e.Break.Until.UTC().Format(time.RFC3339)
	}
	if e.Shorter {
		return fmt.Sprintf("%v: the break in force is %s", ErrBreakShorter, until)
	}
	return fmt.Sprintf("%v: %s", ErrExcluded, until)
}

// Unwrap makes errors.Is match ErrExcluded, or ErrBreakShorter.
func (e *ExcludedError) Unwrap() error {
	if e.Shorter {
		return ErrBreakShorter
	}
	return ErrExcluded
}

// RealityCheckError is a sale refused because the reality check is due: the
// session's figures, to show. It matches ErrRealityCheck.
type RealityCheckError struct{ Session Session }

func (e *RealityCheckError) Error() string {
	return fmt.Sprintf("%v: session since %s, staked %s, won %s", ErrRealityCheck,
		e.Session.Start.UTC().Format(time.RFC3339), e.Session.Staked, e.Session.Won)
}

// Unwrap makes errors.Is(err, ErrRealityCheck) true.
func (e *RealityCheckError) Unwrap() error { return ErrRealityCheck }

// HeldError is play refused while a prize is held. It matches ErrPrizeHeld.
type HeldError struct{ Held []HeldPrize }

func (e *HeldError) Error() string {
	return fmt.Sprintf("%v: %d prize(s), ticket %s", ErrPrizeHeld, len(e.Held), e.Held[0].Ticket)
}

// Unwrap makes errors.Is(err, ErrPrizeHeld) true.
func (e *HeldError) Unwrap() error { return ErrPrizeHeld }

// PlayerPINError is a wrong card PIN. It matches ErrPlayerPIN.
type PlayerPINError struct{ Left int }

func (e *PlayerPINError) Error() string {
	return fmt.Sprintf("%v (%d attempts left)", ErrPlayerPIN, e.Left)
}

// Unwrap makes errors.Is(err, ErrPlayerPIN) true.
func (e *PlayerPINError) Unwrap() error { return ErrPlayerPIN }
