package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Cents is an amount of money in euro cents. Money is never a float.
type Cents int64

// Stakes are the unit prices of article 2: 0,50 €, 1 € and 2 €.
var Stakes = []Cents{50, 100, 200}

// ValidStake reports whether c is one of the Stakes.
func ValidStake(c Cents) bool {
	for _, s := range Stakes {
		if c == s {
			return true
		}
	}
	return false
}

// String writes c for logs and error texts: "7.50 EUR". What a person reads
// is worded by the presentation side, in the user's language.
func (c Cents) String() string { return c.Euros() + " EUR" }

// Euros formats c as a plain decimal in euros ("7.50"), for CSV and logs.
func (c Cents) Euros() string {
	v := int64(c)
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// MaxAmount bounds what ParseAmount accepts (one million euros), far above
// any credit a kiosk takes, so that sums of amounts can never overflow.
const MaxAmount = Cents(100_000_000)

// ParseAmount reads a positive amount in euros with at most two decimals,
// with a comma or a point ("12,5", "12.50", "100", "1 000,00"). It never goes
// through a float.
func ParseAmount(s string) (Cents, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(t, "€")), "EUR")
	t = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "").Replace(strings.TrimSpace(t))
	t = strings.Replace(t, ",", ".", 1)
	whole, frac, hasFrac := strings.Cut(t, ".")
	if whole == "" && !hasFrac || !allDigits(whole) || !allDigits(frac) || hasFrac && frac == "" {
		return 0, &AmountError{Input: s, Problem: AmountNotANumber}
	}
	if len(frac) > 2 {
		return 0, &AmountError{Input: s, Problem: AmountDecimals}
	}
	if len(whole) > 9 {
		return 0, &AmountError{Input: s, Problem: AmountTooLarge}
	}
	for len(frac) < 2 {
		frac += "0"
	}
	w, _ := strconv.ParseInt("0"+whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	c := Cents(w*100 + f)
	if err := checkAmount(c); err != nil {
		err.Input = s
		return 0, err
	}
	return c, nil
}

// checkAmount refuses an amount of money that is not positive or beyond
// MaxAmount.
func checkAmount(c Cents) *AmountError {
	switch {
	case c <= 0:
		return &AmountError{Input: c.Euros(), Problem: AmountNotPositive}
	case c > MaxAmount:
		return &AmountError{Input: c.Euros(), Problem: AmountTooLarge}
	}
	return nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ParseStake reads a stake in euros ("0.5", "0,50", "1", "2 €").
func ParseStake(s string) (Cents, error) {
	c, err := ParseAmount(s)
	if err != nil || !ValidStake(c) {
		return 0, fmt.Errorf("%w: %q (0.50, 1 or 2)", ErrBadStake, s)
	}
	return c, nil
}
