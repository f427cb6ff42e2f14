package engine_test

import (
	"errors"
	"testing"

	"starfortune/engine"
)

func TestCentsStringIsForLogs(t *testing.T) {
	for c, want := range map[engine.Cents]string{750: "7.50 EUR", 0: "0.00 EUR", -200: "-2.00 EUR", 119_000_000: "1190000.00 EUR"} {
		if got := c.String(); got != want {
			t.Errorf("%d cents: got %q, want %q", c, got, want)
		}
	}
	if got := engine.Cents(750).Euros(); got != "7.50" {
		t.Errorf("Euros: %q", got)
	}
}

func TestParseAmount(t *testing.T) {
	good := map[string]engine.Cents{"12,5": 1250, "12.50": 1250, "100": 10000, "1 000,00": 100000,
		"0,01": 1, " 7,50 € ": 750, ".5": 50, "20EUR": 2000}
	for in, want := range good {
		if got, err := engine.ParseAmount(in); err != nil || got != want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, want := range map[string]engine.AmountProblem{
		"": engine.AmountNotANumber, "0": engine.AmountNotPositive, "0,00": engine.AmountNotPositive,
		"-5": engine.AmountNotANumber, "1,234": engine.AmountDecimals, "abc": engine.AmountNotANumber,
		"1e3": engine.AmountNotANumber, "12,": engine.AmountNotANumber, "1.2.3": engine.AmountNotANumber,
		"NaN": engine.AmountNotANumber, "10000000": engine.AmountTooLarge, "1000000,01": engine.AmountTooLarge,
		"1,5,0": engine.AmountNotANumber,
	} {
		_, err := engine.ParseAmount(in)
		var ae *engine.AmountError
		if !errors.Is(err, engine.ErrBadAmount) || !errors.As(err, &ae) || ae.Problem != want || ae.Input != in {
			t.Errorf("ParseAmount(%q): err %v, want problem %d", in, err, want)
		}
	}
}

func TestParseStake(t *testing.T) {
	for in, want := range map[string]engine.Cents{"0.5": 50, "0,50": 50, "1": 100, "2": 200, "2 €": 200} {
		if got, err := engine.ParseStake(in); err != nil || got != want {
			t.Errorf("ParseStake(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"3", "0,25", "x", ""} {
		if _, err := engine.ParseStake(in); !errors.Is(err, engine.ErrBadStake) {
			t.Errorf("ParseStake(%q): %v", in, err)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"12,50", "1 000", "0.01", "-1", "9999999,99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := engine.ParseAmount(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadAmount) {
				t.Fatalf("%q: unexpected error %v", s, err)
			}
			return
		}
		if c <= 0 {
			t.Fatalf("%q parsed to non-positive %d", s, c)
		}
		if back, err := engine.ParseAmount(c.Euros()); err != nil || back != c {
			t.Fatalf("%q: round trip %s -> %d, %v", s, c.Euros(), back, err)
		}
	})
}
