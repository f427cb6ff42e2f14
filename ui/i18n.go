package ui

import (
	"embed"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"

	"starfortune/engine"
	_ "starfortune/internal/localeenv" // a C.UTF-8 locale read as C before Fyne reads it
	"starfortune/present"
)

// The labels are written in English in the code and translated by the JSON
// files of translations/ (one per language, named <lang>.json, each holding
// every key: the English file words the keys for players).
//
//go:embed translations
var translations embed.FS

var (
	loadMu sync.Mutex
	loaded string // "<language>/<system locale's language>" last installed
	// current is the loaded language's formats (French until a load).
	current atomic.Pointer[present.Format]
)

func init() { current.Store(present.French) }

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
	format, ok := present.For(language)
	if !ok {
		fyne.LogError("no translation for "+language, fmt.Errorf("languages: %s", strings.Join(present.Languages, ", ")))
		language = format.Language
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
	current.Store(format)
	loaded = language + "/" + string(sys)
}

// money writes a sum of money the way the loaded language does.
func money(c engine.Cents) string { return current.Load().Money(c) }

// shortAmount writes a sum the way the board prints it ("20 €", "2,50 €").
func shortAmount(c engine.Cents) string { return current.Load().Short(c) }

// group writes a count with groups of thousands.
func group(n int) string { return current.Load().Count(int64(n)) }

// percent writes a ratio as a percentage with two decimals.
func percent(r float64) string { return current.Load().Percent(r) }

// when writes a date and time in the terminal's time zone.
func when(t time.Time) string { return current.Load().When(t) }

// amount is the template data of labels holding a sum of money.
func amount(c engine.Cents) map[string]any { return map[string]any{"Amount": money(c)} }

// nth is the template data of labels holding a number.
func nth(n int) map[string]any { return map[string]any{"N": fmt.Sprint(n)} }
