// Package present words what the engine decided for people: sums of money,
// counts, ratios and dates the way each language writes them, and the CSV
// exports. The window (ui/) and the command line share it, so a sum reads
// the same on the screen and in a terminal. It imports the engine only.
package present

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"starfortune/engine"
)

// Languages are the languages the game speaks; the first is the default.
var Languages = []string{"fr", "en"}

// Format is how one language writes sums, counts, ratios and dates.
type Format struct {
	Language string
	decimal  string // "," or "."
	thousand string // between groups of three digits
	euroLead bool   // "€12.50" rather than "12,50 €"
	percent  string // after the figures of a ratio
	date     string // time.Format layout of a date and time
}

var formats = map[string]*Format{
	"fr": {Language: "fr", decimal: ",", thousand: " ", percent: " %", date: "02/01/2006 15:04:05"},
	"en": {Language: "en", decimal: ".", thousand: ",", euroLead: true, percent: "%", date: "2 Jan 2006 15:04:05"},
}

// For is the format of language, and whether the game speaks it (if not,
// French's).
func For(language string) (*Format, bool) {
	f, ok := formats[language]
	if !ok {
		return formats[Languages[0]], false
	}
	return f, true
}

// French is how the règlement writes: "12 500,00 €".
var French, _ = For("fr")

// Money writes a sum of money: French "12 500,00 €", English "€12,500.00".
func (f *Format) Money(c engine.Cents) string {
	sign, v := split(c)
	return f.euros(sign, f.group(v/100)+f.decimal+fmt.Sprintf("%02d", v%100))
}

// Short writes a sum the way the board prints it: whole euros without
// decimals ("20 €", "0 €", "25 000 €"; "€20", "€0", "€25,000"), other sums
// with them ("2,50 €"; "€2.50").
func (f *Format) Short(c engine.Cents) string {
	if c%100 != 0 {
		return f.Money(c)
	}
	sign, v := split(c)
	return f.euros(sign, f.group(v/100))
}

// Count writes a whole number with groups of thousands ("12 500"; "12,500").
func (f *Format) Count(n int64) string {
	if n < 0 {
		return "-" + f.group(-n)
	}
	return f.group(n)
}

// Percent writes a ratio as a percentage with two decimals ("70,00 %";
// "70.00%").
func (f *Format) Percent(r float64) string {
	return strings.Replace(fmt.Sprintf("%.2f", 100*r), ".", f.decimal, 1) + f.percent
}

// WholePercent writes a ratio as a whole percentage ("70 %"; "70%").
func (f *Format) WholePercent(r float64) string {
	return strconv.FormatFloat(100*r, 'f', 0, 64) + f.percent
}

// When writes a date and time in the terminal's time zone ("02/12/2026
// 14:05:00"; "2 Dec 2026 14:05:00").
func (f *Format) When(t time.Time) string { return t.Local().Format(f.date) }

func split(c engine.Cents) (sign string, v int64) {
	if v = int64(c); v < 0 {
		return "-", -v
	}
	return "", v
}

// euros puts the euro sign and the sign on figures.
func (f *Format) euros(sign, figures string) string {
	if f.euroLead {
		return sign + "€" + figures
	}
	return sign + figures + " €"
}

// group writes a non-negative whole number with its groups of thousands.
func (f *Format) group(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(f.thousand)
		}
		b.WriteRune(r)
	}
	return b.String()
}
