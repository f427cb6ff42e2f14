package present_test

import (
	"testing"
	"time"

	"starfortune/engine"
	"starfortune/present"
)

func TestMoney(t *testing.T) {
	en, _ := present.For("en")
	for c, want := range map[engine.Cents][2]string{
		1_250_000: {"12 500,00 €", "€12,500.00"}, 50: {"0,50 €", "€0.50"}, 750: {"7,50 €", "€7.50"},
		0: {"0,00 €", "€0.00"}, 119_000_000: {"1 190 000,00 €", "€1,190,000.00"}, -200: {"-2,00 €", "-€2.00"},
		100_000: {"1 000,00 €", "€1,000.00"}, 99_999: {"999,99 €", "€999.99"},
	} {
		if got := present.French.Money(c); got != want[0] {
			t.Errorf("fr %d cents: got %q, want %q", c, got, want[0])
		}
		if got := en.Money(c); got != want[1] {
			t.Errorf("en %d cents: got %q, want %q", c, got, want[1])
		}
	}
}

func TestShortCountPercentWhen(t *testing.T) {
	en, _ := present.For("en")
	fr := present.French
	for _, c := range []struct{ got, want string }{
		{fr.Short(2_500_000), "25 000 €"}, {en.Short(2_500_000), "€25,000"}, {fr.Short(250), "2,50 €"},
		{fr.Short(0), "0 €"}, {fr.Count(850_000), "850 000"}, {en.Count(-1234), "-1,234"},
		{fr.Percent(0.7), "70,00 %"}, {en.Percent(0.7), "70.00%"}, {fr.WholePercent(0.7), "70 %"}, {en.WholePercent(0.70001), "70%"},
		{fr.When(time.Date(2026, 12, 2, 14, 5, 0, 0, time.Local)), "02/12/2026 14:05:00"},
		{en.When(time.Date(2026, 12, 2, 14, 5, 0, 0, time.Local)), "2 Dec 2026 14:05:00"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if f, ok := present.For("de"); ok || f != present.French {
		t.Errorf("an unknown language falls back to French")
	}
}
