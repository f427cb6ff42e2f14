package config_test

import (
	"strings"
	"testing"

	"starfortune/config"
)

// The window's language: --lang, then the settings file, then the system
// locale, then French.
func TestLanguagePrecedence(t *testing.T) {
	env := func(vars ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(vars); i += 2 {
			m[vars[i]] = vars[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name   string
		file   string // settings file body; "-" for no file
		flag   string
		getenv func(string) string
		want   string
	}{
		{"nothing: French", "-", "", env(), "fr"},
		{"C locale", "-", "", env("LANG", "C.UTF-8"), "fr"},
		{"French locale", "-", "", env("LANG", "fr_FR.UTF-8"), "fr"},
		{"German locale", "-", "", env("LANG", "de_DE.UTF-8"), "fr"},
		{"English locale", "-", "", env("LANG", "en_GB.UTF-8"), "en"},
		{"bare en", "-", "", env("LANG", "en"), "en"},
		{"LC_ALL beats LANG", "-", "", env("LC_ALL", "fr_FR.UTF-8", "LANG", "en_US.UTF-8"), "fr"},
		{"LC_MESSAGES beats LANG", "-", "", env("LC_MESSAGES", "en_US.UTF-8", "LANG", "fr_FR.UTF-8"), "en"},
		{"LC_ALL beats LC_MESSAGES", "-", "", env("LC_ALL", "en_US.UTF-8", "LC_MESSAGES", "fr_FR.UTF-8"), "en"},
		{"file without language keeps the locale", "kiosk_id = \"k1\"\n", "", env("LANG", "en_US.UTF-8"), "en"},
		{"file beats the locale", "language = \"fr\"\n", "", env("LANG", "en_US.UTF-8"), "fr"},
		{"file in English", "language = \"en\"\n", "", env("LANG", "fr_FR.UTF-8"), "en"},
		{"flag beats the file", "language = \"fr\"\n", "en", env("LANG", "fr_FR.UTF-8"), "en"},
		{"flag beats file and locale", "language = \"en\"\n", "fr", env("LANG", "en_US.UTF-8"), "fr"},
		{"flag without file", "-", "en", env(), "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "-" {
				path = writeConfig(t, tt.file)
			}
			cfg, err := config.Load(path, tt.flag, tt.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Language != tt.want {
				t.Errorf("language %q, want %q", cfg.Language, tt.want)
			}
		})
	}
}

// The command line's half of this test (`starfortune --lang xx history`
// exits 2) belongs to the command line's package.
func TestLangFlagRejectsOtherLanguages(t *testing.T) {
	for _, path := range []string{"", writeConfig(t, "language = \"en\"\n")} {
		if _, err := config.Load(path, "de", noEnv); err == nil || !strings.Contains(err.Error(), `--lang must be "fr" or "en", got "de"`) {
			t.Fatalf("file %q: error %v", path, err)
		}
	}
}
