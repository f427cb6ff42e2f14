package engine

import (
	"fmt"
	"strings"
)

// MaxEmission is the largest emission number: a ticket writes it in two
// digits.
const MaxEmission = 99

// Ticket identifies one unit: its block and its index in the block. Written
// "EE-SSS-BBBB-IIIIII-C": emission, stake in cents, block number, index, and
// a Damm check digit over the fifteen digits before it, so a support agent
// who mistypes any single digit or swaps two neighbours is told at once.
type Ticket struct {
	Block BlockRef
	Index uint32
}

// Plus is the ticket n units further in the same block.
func (t Ticket) Plus(n uint32) Ticket { return Ticket{Block: t.Block, Index: t.Index + n} }

// String formats the ticket with its check digit: EE-SSS-BBBB-IIIIII-C.
// It writes the digits itself (a fleet kiosk writes a sale's ticket four
// times: its log line, its receipt, its push and its movement's); a number
// too wide for its field, which no valid ticket has, goes through fmt.
func (t Ticket) String() string {
	r := t.Block
	if r.Emission > 99 || r.Stake < 0 || r.Stake > 999 || r.Number > 9999 || t.Index > 999_999 {
		body := fmt.Sprintf("%02d%03d%04d%06d", r.Emission, r.Stake, r.Number, t.Index)
		return fmt.Sprintf("%s-%s-%s-%s-%c", body[0:2], body[2:5], body[5:9], body[9:15], damm(body))
	}
	var d [ticketDigits]byte // the digits, the check digit last
	put := func(field []byte, v uint64) {
		for i := len(field) - 1; i >= 0; i-- {
			field[i], v = byte('0'+v%10), v/10
		}
	}
	put(d[0:2], uint64(r.Emission))
	put(d[2:5], uint64(r.Stake))
	put(d[5:9], uint64(r.Number))
	put(d[9:15], uint64(t.Index))
	d[15] = damm(d[:15])
	b := make([]byte, 0, ticketDigits+4)
	b = append(append(b, d[0:2]...), '-')
	b = append(append(b, d[2:5]...), '-')
	b = append(append(b, d[5:9]...), '-')
	b = append(append(b, d[9:15]...), '-')
	return string(append(b, d[15]))
}

// ticketDigits is the number of digits of a ticket, check digit included.
const ticketDigits = 16

// ParseTicket reads a ticket number typed by a person: dashes and spaces are
// optional, the check digit is not.
func ParseTicket(s string) (Ticket, error) {
	digits := typedDigits(s)
	if !allDigits(digits) {
		return Ticket{}, &TicketError{Input: s, Problem: TicketNotDigits}
	}
	if len(digits) != ticketDigits {
		return Ticket{}, &TicketError{Input: s, Problem: TicketLength, Digits: len(digits)}
	}
	if c := damm(digits[:ticketDigits-1]); c != digits[ticketDigits-1] {
		return Ticket{}, &TicketError{Input: s, Problem: TicketCheckDigit}
	}
	num := func(from, to int) uint32 {
		var n uint32
		for _, c := range digits[from:to] {
			n = n*10 + uint32(c-'0')
		}
		return n
	}
	t := Ticket{Block: BlockRef{Emission: uint16(num(0, 2)), Stake: Cents(num(2, 5)), Number: num(5, 9)}, Index: num(9, 15)}
	if t.Block.Emission == 0 || t.Block.Emission > MaxEmission || !ValidStake(t.Block.Stake) || t.Block.Number == 0 || t.Index >= BlockSize {
		return Ticket{}, &TicketError{Input: s, Problem: TicketNotOurs}
	}
	return t, nil
}

// typedDigits is a number as a person typed it, without the dashes and
// spaces that group its digits.
func typedDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// dammTable is the quasigroup of order 10 of H. M. Damm's check digit.
var dammTable = [10][10]byte{
	{0, 3, 1, 7, 5, 9, 8, 6, 4, 2},
	{7, 0, 9, 2, 1, 5, 4, 8, 6, 3},
	{4, 2, 0, 6, 8, 7, 1, 3, 5, 9},
	{1, 7, 5, 0, 9, 8, 3, 4, 2, 6},
	{6, 1, 2, 3, 0, 4, 5, 9, 7, 8},
	{3, 6, 7, 4, 2, 0, 9, 5, 8, 1},
	{5, 8, 6, 9, 7, 2, 0, 1, 3, 4},
	{8, 9, 4, 5, 3, 6, 2, 0, 1, 7},
	{9, 4, 3, 8, 6, 1, 7, 2, 0, 5},
	{2, 5, 8, 1, 4, 3, 6, 7, 9, 0},
}

// damm returns the check digit of decimal digits (a string, or bytes).
func damm[T ~string | ~[]byte](digits T) byte {
	var interim byte
	for i := range len(digits) {
		interim = dammTable[interim][digits[i]-'0']
	}
	return '0' + interim
}
