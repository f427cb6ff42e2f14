package ui

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"

	"starfortune/engine"
	_ "starfortune/ui/localeenv" // a C.UTF-8 locale read as C before Fyne reads it
)

// The labels are written in English in the code and translated by the JSON
// files of translations/ (one per language, named <lang>.json, each holding
// every key: the English file words the keys for players).
//
//go:embed translations
var translations embed.FS

// languages are the languages the window speaks; the first is the default.
var languages = []string{"fr", "en"}

// numbers is how a language writes sums, counts, ratios and dates.
type numbers struct {
	language string
	decimal  string // "," or "."
	thousand string // between groups of three digits
	euroLead bool   // "€12.50" rather than "12,50 €"
	percent  string // after the figures of a ratio
	date     string // time.Format layout of a date and time
}

var numberFormats = map[string]*numbers{
	"fr": {language: "fr", decimal: ",", thousand: " ", percent: " %", date: "02/01/2006 15:04:05"},
	"en": {language: "en", decimal: ".", thousand: ",", euroLead: true, percent: "%", date: "2 Jan 2006 15:04:05"},
}

var (
	loadMu sync.Mutex
	loaded string // "<language>/<system locale's language>" last installed
	// current is the loaded language's formats (French until a load).
	current atomic.Pointer[numbers]
)

func init() { current.Store(numberFormats["fr"]) }

// loadTranslations installs the labels and the number formats of language
// ("fr" or "en"; anything else falls back to French).
//
// The kiosk's language is a setting of the terminal, not of the system
// locale, whereas Fyne's localizer picks a translation from the system
// locale. So the chosen file is installed under its own language, under
// "en" (the fallback Fyne resolves when the locale has no translation of
// ours: a kiosk image with a C locale) and under the language of the system
// locale (whichever translation Fyne picks then holds our labels in the
// chosen language). Loading another language later replaces the labels
// (the tests switch between French and English).
func loadTranslations(language string) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if numberFormats[language] == nil {
		fyne.LogError("no translation for "+language, fmt.Errorf("languages: %s", strings.Join(languages, ", ")))
		language = languages[0]
	}
	sys := fyne.Locale(lang.SystemLocale().LanguageString())
	if loaded == language+"/"+string(sys) {
		return
	}
	data, err := translations.ReadFile("translations/" + language + ".json")
	if err != nil {
		fyne.LogError("no translation for "+language, err)
		return
	}
	tags := []fyne.Locale{fyne.Locale(language), "en"}
	if sys != "" && sys != tags[0] && sys != tags[1] {
		tags = append(tags, sys)
	}
	for _, tag := range tags {
		if err := lang.AddTranslationsForLocale(data, tag); err != nil {
			fyne.LogError("translation "+language+" as "+string(tag), err)
		}
	}
	current.Store(numberFormats[language])
	loaded = language + "/" + string(sys)
}

// money writes a sum of money the way the loaded language does: French
// "12 500,00 €" (engine.Cents.String), English "€12,500.00".
func money(c engine.Cents) string {
	f := current.Load()
	if f.language == "fr" {
		return c.String()
	}
	sign, v := "", int64(c)
	if v < 0 {
		sign, v = "-", -v
	}
	return f.euros(sign, f.group(v/100)+f.decimal+fmt.Sprintf("%02d", v%100))
}

// shortAmount writes a sum the way the board prints it: whole euros without
// decimals ("20 €", "0 €", "25 000 €"; "€20", "€0", "€25,000"), other sums
// with them ("2,50 €"; "€2.50").
func shortAmount(c engine.Cents) string {
	if c%100 != 0 {
		return money(c)
	}
	f := current.Load()
	sign, v := "", int64(c)
	if v < 0 {
		sign, v = "-", -v
	}
	return f.euros(sign, f.group(v/100))
}

// euros puts the euro sign and the sign on figures.
func (f *numbers) euros(sign, figures string) string {
	if f.euroLead {
		return sign + "€" + figures
	}
	return sign + figures + " €"
}

// group writes a non-negative whole number with its groups of thousands.
func (f *numbers) group(n int64) string {
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

// group writes a count with groups of thousands ("12 500"; "12,500").
func group(n int) string {
	if n < 0 {
		return "-" + current.Load().group(int64(-n))
	}
	return current.Load().group(int64(n))
}

// percent writes a ratio as a percentage with two decimals ("70,00 %";
// "70.00%").
func percent(r float64) string {
	f := current.Load()
	return strings.Replace(fmt.Sprintf("%.2f", 100*r), ".", f.decimal, 1) + f.percent
}

// when writes a date and time in the terminal's time zone ("02/12/2026
// 14:05:00"; "2 Dec 2026 14:05:00").
func when(t time.Time) string { return t.Local().Format(current.Load().date) }

// amount is the template data of labels holding a sum of money.
func amount(c engine.Cents) map[string]any { return map[string]any{"Amount": money(c)} }

// nth is the template data of labels holding a number.
func nth(n int) map[string]any { return map[string]any{"N": fmt.Sprint(n)} }
