package main

import (
	"bytes"
	"strings"
	"testing"
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
			cfg, err := LoadSettings(path, tt.flag, tt.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Language != tt.want {
				t.Errorf("language %q, want %q", cfg.Language, tt.want)
			}
		})
	}
}

func TestLangFlagRejectsOtherLanguages(t *testing.T) {
	if _, err := LoadSettings("", "de", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), `--lang must be "fr" or "en", got "de"`) {
		t.Fatalf("error %v", err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"--data", t.TempDir(), "--lang", "xx", "history"}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), `--lang must be "fr" or "en"`) {
		t.Fatalf("status %d, stderr %q", code, errOut.String())
	}
}

// Under Debian's default C.UTF-8 locale the program says nothing on stderr
// (Fyne used to report "Error parsing user locale C" at every start): a real
// process, since the locale is read before main.
func TestNoLocaleNoiseOnStderr(t *testing.T) {
	for _, locale := range []string{"C.UTF-8", "C", "fr_FR.UTF-8", "en_GB.UTF-8"} {
		cmd := child(t.TempDir(), "version")
		env := []string{"LANG=" + locale}
		for _, kv := range cmd.Env {
			if name, _, _ := strings.Cut(kv, "="); name != "LANG" && name != "LC_ALL" && name != "LC_MESSAGES" && name != "LANGUAGE" {
				env = append(env, kv)
			}
		}
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() != 0 || !strings.HasPrefix(stdout.String(), "starfortune ") {
			t.Errorf("LANG=%s: %v, stdout %q, stderr %q", locale, err, stdout.String(), stderr.String())
		}
	}
}
