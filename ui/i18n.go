package ui

import (
	"embed"
	"fmt"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"

	"starfortune/engine"
)

// The labels are written in English in the code and translated by the JSON
// files of translations/ (one per language, named <lang>.json).
//
//go:embed translations
var translations embed.FS

var loadedLanguage sync.Once

// loadTranslations installs the labels of language (e.g. "fr"). The kiosk's
// language is a setting of the terminal, not of the system locale: the
// chosen file is also installed under the fallback language Fyne resolves
// when the system locale has no translation of ours (a kiosk image with a C
// or English locale still speaks French).
func loadTranslations(language string) {
	loadedLanguage.Do(func() {
		data, err := translations.ReadFile("translations/" + language + ".json")
		if err != nil {
			fyne.LogError("no translation for "+language, err)
			return
		}
		if err := lang.AddTranslationsForLocale(data, fyne.Locale(language)); err != nil {
			fyne.LogError("translation "+language, err)
		}
		if err := lang.AddTranslationsForLocale(data, "en"); err != nil {
			fyne.LogError("translation "+language+" as fallback", err)
		}
	})
}

// amount is the template data of labels holding a sum of money.
func amount(c engine.Cents) map[string]any { return map[string]any{"Amount": c.String()} }

// shortAmount writes a sum the way the board prints it: whole euros without
// decimals ("20 €", "0 €", "25 000 €"), other sums with them ("2,50 €").
func shortAmount(c engine.Cents) string {
	s := c.String()
	if c%100 == 0 {
		return s[:len(s)-len(",00 €")] + " €"
	}
	return s
}

// nth is the template data of labels holding a number.
func nth(n int) map[string]any { return map[string]any{"N": fmt.Sprint(n)} }
