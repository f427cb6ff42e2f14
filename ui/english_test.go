package ui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"starfortune/engine"
	"starfortune/ui"
)

// euros is an English sum below a thousand euros: "€99.00".
func euros(c engine.Cents) string {
	if c < 0 || c >= 100_000 {
		panic("euros: out of the test's range")
	}
	return fmt.Sprintf("€%d.%02d", c/100, c%100)
}

// visibleTexts lists the texts drawn on the window, hidden objects left out.
func visibleTexts(o fyne.CanvasObject) []string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch o := o.(type) {
		case *canvas.Text:
			if o.Text != "" {
				out = append(out, o.Text)
			}
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(o).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

// frenchOnly are the French labels that differ from their English ones.
func frenchOnly(t *testing.T) map[string]bool {
	t.Helper()
	read := func(l string) map[string]string {
		data, err := os.ReadFile("translations/" + l + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	fr, en := read("fr"), read("en")
	out := map[string]bool{}
	for k, v := range fr {
		if v != en[k] && !strings.Contains(v, "{{") {
			out[v] = true
		}
	}
	return out
}

var frenchMoney = regexp.MustCompile(`\d €|\d,\d\d`)

// assertEnglish checks that the window shows no French label or sum.
func assertEnglish(t *testing.T, r rig) []string {
	t.Helper()
	texts := visibleTexts(r.k.Window().Canvas().Content())
	french := frenchOnly(t)
	for _, s := range texts {
		if french[s] || frenchMoney.MatchString(s) {
			t.Errorf("French on the English window: %q", s)
		}
	}
	return texts
}

func TestEnglishKiosk(t *testing.T) {
	r := newRig(t, ui.Options{Language: "en"})
	c := r.k.Controls()
	if got := c.PlayButton().Text; got != "PLAY" {
		t.Errorf("play button %q, want PLAY", got)
	}
	if got := c.Funds(); got != "€100.00" {
		t.Errorf("funds %q, want €100.00", got)
	}
	if got := c.HistoryButton().Text; got != "HISTORY" {
		t.Errorf("history button %q", got)
	}
	var stakes []string
	for _, b := range c.StakeButtons() {
		stakes = append(stakes, b.Text)
	}
	if !slices.Equal(stakes, []string{"€0.50", "€1", "€2"}) {
		t.Errorf("stakes %q", stakes)
	}
	if got, want := c.Message(), "Choose your stake, then press PLAY"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	texts := assertEnglish(t, r)
	for _, want := range []string{"Funds", "STAKE", "€100.00", "€0", "€10", "Keys: 1 2 3 pick a puck · Enter PLAY · Space GO"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no %q on the window; it shows %q", want, texts)
		}
	}

	r.tapPlay()
	if got := c.Funds(); got != "€99.00" {
		t.Errorf("funds %q after PLAY, want €99.00", got)
	}
	if got, want := c.Message(), "Pick a puck: 1, 2 or 3"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	r.playOut(t, 0)
	sale := r.history(t)[0]
	if got, want := c.Funds(), euros(sale.BalanceAfter); got != want {
		t.Errorf("funds %q after the unit, want %q", got, want)
	}
	want := "Not a winner this time"
	if sale.Prize() > 0 {
		want = "You win " + euros(sale.Prize()) + "!"
	}
	if got := c.Message(); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	assertEnglish(t, r)

	test.Tap(c.HistoryButton())
	r.k.Wait()
	texts = assertEnglish(t, r)
	for _, want := range []string{"HISTORY", "Last game", "Previous games", "Date", "2 Dec 2026 14:05:00",
		"Funds before", "€100.00", "Funds after", euros(sale.BalanceAfter), "Page 1"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no %q in the history; it shows %q", want, texts)
		}
	}
}

func TestEnglishBonus(t *testing.T) {
	r := newRig(t, ui.Options{Language: "en"})
	u := toBonus(t, r)
	if got, want := r.k.Controls().Message(), "BONUS! Press GO to reveal your win"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	r.key(fyne.KeySpace)
	want := euros(u.Drops[0].Value(50))
	if got := r.k.Bonus().Value(); got != want {
		t.Errorf("revealed %q, want %q", got, want)
	}
	assertEnglish(t, r)
}

// After an English window, a French one speaks French again.
func TestFrenchAfterEnglish(t *testing.T) {
	newRig(t, ui.Options{Language: "en"})
	r := newRig(t, ui.Options{Language: "fr"})
	if got := r.k.Controls().PlayButton().Text; got != "JOUER" {
		t.Errorf("play button %q", got)
	}
	if got := r.k.Controls().Funds(); got != "100,00 €" {
		t.Errorf("funds %q", got)
	}
}

func TestGoldenBoardAtRestEnglish(t *testing.T) {
	r := newRig(t, ui.Options{Language: "en"})
	test.AssertImageMatches(t, "board-rest-en.png", r.k.Window().Canvas().Capture())
}
