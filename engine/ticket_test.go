package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"starfortune/engine"
)

func TestTicketRoundTrip(t *testing.T) {
	tk := engine.Ticket{Block: engine.BlockRef{Emission: 1, Stake: 50, Number: 3}, Index: 123}
	s := tk.String()
	if !strings.HasPrefix(s, "01-050-0003-000123-") || len(s) != 20 {
		t.Fatalf("format: %q", s)
	}
	for _, in := range []string{s, strings.ReplaceAll(s, "-", ""), strings.ReplaceAll(s, "-", " "), " " + s + " "} {
		got, err := engine.ParseTicket(in)
		if err != nil || got != tk {
			t.Errorf("ParseTicket(%q) = %+v, %v", in, got, err)
		}
	}
}

func TestParseTicketRejects(t *testing.T) {
	good := engine.Ticket{Block: engine.BlockRef{Emission: 2, Stake: 200, Number: 17}, Index: 849_999}.String()
	cases := map[string]engine.TicketProblem{
		"":                     engine.TicketLength,
		"01-050-0003":          engine.TicketLength,
		"01-050-0003-00012a-1": engine.TicketNotDigits,
		"00-050-0001-000001-" + check("00050000100000"+"1"): engine.TicketNotOurs, // emission 00
		"01-075-0001-000001-" + check("01075000100000"+"1"): engine.TicketNotOurs, // stake 0,75
		"01-050-0000-000001-" + check("01050000000000"+"1"): engine.TicketNotOurs, // block 0000
		"01-050-0001-850000-" + check("010500001850000"):    engine.TicketNotOurs, // beyond the block
	}
	// Every single-digit typing error is caught by the check digit.
	for i, c := range good {
		if c < '0' || c > '9' {
			continue
		}
		for d := '0'; d <= '9'; d++ {
			if d != c {
				cases[good[:i]+string(d)+good[i+1:]] = engine.TicketCheckDigit
			}
		}
	}
	for in, want := range cases {
		_, err := engine.ParseTicket(in)
		var te *engine.TicketError
		if !errors.Is(err, engine.ErrBadTicket) || !errors.As(err, &te) {
			t.Errorf("ParseTicket(%q) = %v, want a *TicketError", in, err)
		} else if te.Problem != want || te.Input != in {
			t.Errorf("ParseTicket(%q): problem %d, want %d", in, te.Problem, want)
		}
	}
}

// check computes a valid check digit by trying all ten: the parser is the
// only public judge of a ticket.
func check(body string) string {
	for d := '0'; d <= '9'; d++ {
		s := body + string(d)
		_, err := engine.ParseTicket(s)
		if err == nil || !strings.Contains(err.Error(), "check digit") {
			return string(d)
		}
	}
	panic("no check digit")
}

func FuzzParseTicket(f *testing.F) {
	f.Add("01-050-0003-000123-4")
	f.Add("0110000010000000")
	f.Add("99-200-9999-849999-0")
	f.Fuzz(func(t *testing.T, s string) {
		tk, err := engine.ParseTicket(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadTicket) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		back, err := engine.ParseTicket(tk.String())
		if err != nil || back != tk {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, tk, tk.String(), back, err)
		}
	})
}

// A ticket's String, written digit by digit, is the format fmt writes, for
// tickets across every field's range and beyond it.
func TestTicketStringIsTheFormat(t *testing.T) {
	want := func(tk engine.Ticket) string {
		r := tk.Block
		body := fmt.Sprintf("%02d%03d%04d%06d", r.Emission, r.Stake, r.Number, tk.Index)
		return fmt.Sprintf("%s-%s-%s-%s-%s", body[0:2], body[2:5], body[5:9], body[9:15], check(body))
	}
	for _, e := range []uint16{1, 9, 10, 99, 100} {
		for _, s := range []engine.Cents{50, 100, 200, 999, 1000} {
			for _, n := range []uint32{1, 17, 9999, 10000} {
				for _, i := range []uint32{0, 7, 123, 849_999, 999_999, 1_000_000} {
					tk := engine.Ticket{Block: engine.BlockRef{Emission: e, Stake: s, Number: n}, Index: i}
					if got := tk.String(); e <= 99 && s <= 999 && n <= 9999 && i <= 999_999 && got != want(tk) {
						t.Errorf("%+v: %q, want %q", tk, got, want(tk))
					} else if len(got) < 20 {
						t.Errorf("%+v: %q", tk, got)
					}
				}
			}
		}
	}
}
