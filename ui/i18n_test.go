package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/lang"

	"starfortune/engine"
	"starfortune/present"
)

func readTranslation(t *testing.T, language string) map[string]string {
	t.Helper()
	data, err := translations.ReadFile("translations/" + language + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s.json: %v", language, err)
	}
	return m
}

var placeholder = regexp.MustCompile(`{{\s*\.(\w+)\s*}}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Every language has exactly the same keys, each with a value using the
// key's template fields.
func TestTranslationsHaveTheSameKeys(t *testing.T) {
	files := map[string]map[string]string{}
	for _, l := range present.Languages {
		files[l] = readTranslation(t, l)
	}
	ref := files[present.Languages[0]]
	for _, l := range present.Languages {
		for k, v := range files[l] {
			if _, ok := ref[k]; !ok {
				t.Errorf("%s.json has %q, which %s.json lacks", l, k, present.Languages[0])
			}
			if v == "" {
				t.Errorf("%s.json: %q has an empty value", l, k)
			}
			if got, want := placeholders(v), placeholders(k); !slices.Equal(got, want) {
				t.Errorf("%s.json: %q uses fields %v, its key %v", l, k, got, want)
			}
		}
		for k := range ref {
			if _, ok := files[l][k]; !ok {
				t.Errorf("%s.json lacks %q", l, k)
			}
		}
	}
}

// lang.L("…"), lang.N("…", …), lang.X("key", …) and lang.XN("key", …)
// with a literal first argument.
var (
	labelCall   = regexp.MustCompile(`lang\.(?:L|N|X|XN)\(\s*("(?:[^"\\]|\\.)*")`)
	anyCall     = regexp.MustCompile(`lang\.(?:L|N|X|XN)\(`)
	literalCall = regexp.MustCompile(`lang\.(?:L|N|X|XN)\(\s*"`)
)

// Every label the code asks for is translated in every language, and every
// label is asked for with a literal (so that this scan sees them all).
func TestEveryLabelOfTheCodeIsTranslated(t *testing.T) {
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]map[string]string{}
	for _, l := range present.Languages {
		files[l] = readTranslation(t, l)
	}
	used := 0
	for _, path := range sources {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n, m := len(anyCall.FindAllIndex(src, -1)), len(literalCall.FindAllIndex(src, -1)); n != m {
			t.Errorf("%s: %d of its %d lang calls do not take a literal key", path, n-m, n)
		}
		for _, m := range labelCall.FindAllSubmatch(src, -1) {
			key, err := strconv.Unquote(string(m[1]))
			if err != nil {
				t.Errorf("%s: %s: %v", path, m[1], err)
				continue
			}
			used++
			for _, l := range present.Languages {
				if _, ok := files[l][key]; !ok {
					t.Errorf("%s: label %q is missing from %s.json", path, key, l)
				}
			}
		}
	}
	if used < 100 {
		t.Fatalf("found only %d labels in the code: is the scan broken?", used)
	}
}

// useLanguage loads language for the test and French again after it.
func useLanguage(t *testing.T, language string) {
	t.Helper()
	loadTranslations(language)
	t.Cleanup(func() { loadTranslations("fr") })
}

// The labels come out in the chosen language whatever the system locale:
// Fyne's localizer follows the locale, the kiosk follows its setting.
func TestLanguageBeatsTheSystemLocale(t *testing.T) {
	for _, tc := range []struct{ locale, language, play, nothing string }{
		{"C.UTF-8", "fr", "JOUER", "0 € : ce palet ne gagne rien"},
		{"C.UTF-8", "en", "PLAY", "€0: this puck wins nothing"},
		{"fr_FR.UTF-8", "en", "PLAY", "€0: this puck wins nothing"},
		{"fr_FR.UTF-8", "fr", "JOUER", "0 € : ce palet ne gagne rien"},
		{"en_GB.UTF-8", "fr", "JOUER", "0 € : ce palet ne gagne rien"},
		{"de_DE.UTF-8", "en", "PLAY", "€0: this puck wins nothing"},
		{"de_DE.UTF-8", "fr", "JOUER", "0 € : ce palet ne gagne rien"},
	} {
		t.Run(tc.locale+"/"+tc.language, func(t *testing.T) {
			t.Setenv("LC_ALL", "")
			t.Setenv("LC_MESSAGES", "")
			t.Setenv("LANGUAGE", "")
			t.Setenv("LANG", tc.locale)
			useLanguage(t, tc.language)
			if got := lang.L("PLAY"); got != tc.play {
				t.Errorf("PLAY is %q, want %q", got, tc.play)
			}
			if got := lang.L("0 €: this puck wins nothing"); got != tc.nothing {
				t.Errorf("got %q, want %q", got, tc.nothing)
			}
			want := "Disponibilités : 100,00 €"
			if tc.language == "en" {
				want = "Funds: €100.00"
			}
			if got := lang.L("Funds: {{.Amount}}", amount(10_000)); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestMoneyInFrench(t *testing.T) {
	useLanguage(t, "fr")
	for _, c := range []engine.Cents{0, 1, 50, 100, 250, 2000, 99_999, 1_250_000, 250_000_000, -200, -123_456} {
		if got := money(c); got != present.French.Money(c) {
			t.Errorf("money(%d) = %q, want %q", c, got, present.French.Money(c))
		}
	}
	for c, want := range map[engine.Cents]string{0: "0 €", 50: "0,50 €", 100: "1 €", 250: "2,50 €", 2000: "20 €", 2_500_000: "25 000 €"} {
		if got := shortAmount(c); got != want {
			t.Errorf("shortAmount(%d) = %q, want %q", c, got, want)
		}
	}
	if got := group(1_234_567); got != "1 234 567" {
		t.Errorf("group = %q", got)
	}
	if got := percent(0.7); got != "70,00 %" {
		t.Errorf("percent = %q", got)
	}
	if got := when(time.Date(2026, 12, 2, 14, 5, 9, 0, time.Local)); got != "02/12/2026 14:05:09" {
		t.Errorf("when = %q", got)
	}
}

func TestMoneyInEnglish(t *testing.T) {
	useLanguage(t, "en")
	for c, want := range map[engine.Cents]string{
		0: "€0.00", 5: "€0.05", 50: "€0.50", 10_000: "€100.00", 99_999: "€999.99",
		1_250_000: "€12,500.00", 250_000_000: "€2,500,000.00", -200: "-€2.00",
	} {
		if got := money(c); got != want {
			t.Errorf("money(%d) = %q, want %q", c, got, want)
		}
	}
	for c, want := range map[engine.Cents]string{0: "€0", 50: "€0.50", 100: "€1", 250: "€2.50", 2000: "€20", 2_500_000: "€25,000"} {
		if got := shortAmount(c); got != want {
			t.Errorf("shortAmount(%d) = %q, want %q", c, got, want)
		}
	}
	if got := group(1_234_567); got != "1,234,567" {
		t.Errorf("group = %q", got)
	}
	if got := percent(0.7); got != "70.00%" {
		t.Errorf("percent = %q", got)
	}
	if got := when(time.Date(2026, 12, 2, 14, 5, 9, 0, time.Local)); got != "2 Dec 2026 14:05:09" {
		t.Errorf("when = %q", got)
	}
	if got := amount(1_250)["Amount"]; got != "€12.50" {
		t.Errorf("amount = %v", got)
	}
}

func TestUnknownLanguageSpeaksFrench(t *testing.T) {
	useLanguage(t, "xx")
	if got := lang.L("PLAY"); got != "JOUER" {
		t.Errorf("PLAY is %q", got)
	}
	if got := money(50); got != "0,50 €" {
		t.Errorf("money = %q", got)
	}
}
