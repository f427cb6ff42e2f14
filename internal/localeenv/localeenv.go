// Package localeenv reads the system locale from the environment (Locale),
// and makes a "C.UTF-8" locale read as the C locale it is, before Fyne
// reads it.
//
// Fyne's lang package looks the system locale up when it is initialized,
// through go-locale, which knows "C" and "POSIX" but not "C.UTF-8" (the
// locale of Debian's minimal installs and containers): it hands "C" on as a
// language tag, and every start of the program, a command line's too,
// printed "Fyne error: Error parsing user locale C" on stderr. This package
// writes the variable that holds such a locale (the one Locale names, which
// go-locale reads too) back as plain "C", so go-locale sees no language, as
// for "C". The game's language is unchanged: a C locale names none, so it
// stays French unless --lang or the settings say otherwise.
//
// It must run before fyne.io/fyne/v2/lang is initialized: it imports only
// the standard library's os and strings, and Go initializes, among the
// packages whose imports are ready, the one first by import path
// ("starfortune/..." before "text/template", which Fyne's lang imports, and
// which needs os too). TestNoLocaleNoiseOnStderr (package e2e) runs the
// program under C.UTF-8 and checks that stderr stays empty.
package localeenv

import (
	"os"
	"strings"
)

// Locale is the variable that names the system locale and its value: the
// first of LC_ALL, LC_MESSAGES and LANG that getenv finds set (the POSIX
// order for messages); "" when none is.
func Locale(getenv func(string) string) (name, value string) {
	for _, name := range [...]string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			return name, v
		}
	}
	return "", ""
}

func init() {
	name, v := Locale(os.Getenv)
	if base, _, ok := strings.Cut(v, "."); ok && (base == "C" || base == "POSIX") {
		os.Setenv(name, base)
	}
}
