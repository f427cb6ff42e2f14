package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"starfortune/sound"
)

func writeConfig(t testing.TB, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "starfortune.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadConfigWithoutFileGivesDefaults(t *testing.T) {
	cfg, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg != DefaultConfig() {
		t.Fatalf("LoadConfig(\"\") = %+v, want the defaults %+v", cfg, DefaultConfig())
	}
	if cfg.Language != "fr" || cfg.IdleTimeout != time.Minute || cfg.LogLevel != "info" || cfg.Emission != 1 {
		t.Fatalf("unexpected defaults %+v", cfg)
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.toml")
	_, err := LoadConfig(path)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.File != path || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestLoadConfigExampleFile(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("deploy", "starfortune.toml"))
	if err != nil {
		t.Fatalf("the example configuration must load: %v", err)
	}
	if cfg.KioskID == DefaultConfig().KioskID {
		t.Errorf("the example should show a kiosk id, got %+v", cfg)
	}
}

func TestLoadConfigGood(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	def := DefaultConfig()
	tests := []struct {
		name string
		body string
		want func(c *Config)
	}{
		{"empty file", "", func(*Config) {}},
		{"comments only", "# nothing\n\n  # here\n", func(*Config) {}},
		{"every key", `
kiosk_id = "gare-nord.7"
emission = 3
blocks_per_stake = 250
language = "en"
idle_timeout = "2m30s"
log_level = "debug"
data_dir = "/var/lib/starfortune"

[sound]
volume = 35
mute = true
attract = true

[central]
url = "host=/run/postgresql dbname=starfortune user=sf_k_k1"
kiosk = "k1"
offline_grace = "5m"
`, func(c *Config) {
			*c = Config{KioskID: "gare-nord.7", Emission: 3, BlocksPerStake: 250, Language: "en",
				IdleTimeout: 150 * time.Second, LogLevel: "debug", DataDir: "/var/lib/starfortune",
				Sound:      sound.Settings{Volume: 35, Mute: true, Attract: true},
				CentralURL: "host=/run/postgresql dbname=starfortune user=sf_k_k1", CentralKiosk: "k1", OfflineGrace: 5 * time.Minute}
		}},
		{"strict offline mode", "[central]\nurl = \"u\"\noffline_grace = \"0s\"\n", func(c *Config) { c.CentralURL, c.OfflineGrace = "u", 0 }},
		{"limits", "emission = 99\nblocks_per_stake = 9999\nidle_timeout = \"10s\"\n", func(c *Config) {
			c.Emission, c.BlocksPerStake, c.IdleTimeout = 99, 9999, 10*time.Second
		}},
		{"home directory", `data_dir = "~/kiosk/data"`, func(c *Config) { c.DataDir = filepath.Join(home, "kiosk", "data") }},
		{"cleaned path", `data_dir = "/srv//sf/../starfortune/"`, func(c *Config) { c.DataDir = "/srv/starfortune" }},
		{"literal strings and inline comments", "log_level = 'warn' # quieter\nlanguage='fr'", func(c *Config) { c.LogLevel = "warn" }},
		{"quoted keys", `"kiosk_id" = "k1"`, func(c *Config) { c.KioskID = "k1" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := def
			tt.want(&want)
			got, err := LoadConfig(writeConfig(t, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadConfigBad(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		line  int
		field string
		msg   string // in the message
	}{
		{"syntax", "kiosk_id = \"a\"\nemission = = 2\n", 2, "", "TOML syntax"},
		{"unterminated string", "language = \"fr\n", 1, "", "TOML syntax"},
		{"duplicate key", "emission = 1\nemission = 2\n", 2, "", "TOML syntax"},
		{"unknown key", "kiosk_id = \"a\"\n\ncolour = \"blue\"\n", 3, "colour", "unknown key (known keys: kiosk_id,"},
		{"misspelt key", "emision = 2\n", 1, "emision", "unknown key (did you mean emission?)"},
		{"unknown table", "language = \"fr\"\n[display]\nwidth = 1280\nheight = 1024\n", 2, "display", "unknown key"},
		{"key in a table", "[kiosk]\nlanguage = \"en\"\n", 1, "kiosk", "unknown key"},
		{"central not a table", "central = \"u\"\n", 1, "central", "must be a table"},
		{"central without url", "[central]\nkiosk = \"k1\"\n", 1, "central", "url is missing"},
		{"central bad grace", "[central]\nurl = \"u\"\noffline_grace = \"-1m\"\n", 1, "central", "offline_grace"},
		{"central bad kiosk", "[central]\nurl = \"u\"\nkiosk = \"k 1\"\n", 1, "central", "not a valid kiosk id"},
		{"central unknown key", "[central]\nurl = \"u\"\nuser = \"x\"\n", 1, "central", "unknown key user"},
		{"kiosk id type", "kiosk_id = 7\n", 1, "kiosk_id", "must be a string, got the integer 7"},
		{"kiosk id chars", "kiosk_id = \"kiosk 7\"\n", 1, "kiosk_id", "not a valid kiosk id"},
		{"kiosk id empty", "kiosk_id = \"\"\n", 1, "kiosk_id", "not a valid kiosk id"},
		{"kiosk id too long", "kiosk_id = \"" + strings.Repeat("k", 33) + "\"\n", 1, "kiosk_id", "1 to 32"},
		{"emission zero", "emission = 0\n", 1, "emission", "between 1 and 99 (two digits of the ticket number), got 0"},
		{"emission too big", "\n\nemission = 100\n", 3, "emission", "must be between 1 and 99"},
		{"emission negative", "emission = -1\n", 1, "emission", "got -1"},
		{"emission string", "emission = \"1\"\n", 1, "emission", `must be an integer, got the string "1"`},
		{"emission float", "emission = 1.5\n", 1, "emission", "must be an integer, got the number 1.5"},
		{"emission table", "[emission]\nnumber = 1\n", 1, "emission", "must be an integer, got a table"},
		{"emission huge", "emission = 99999999999999999999\n", 1, "", "TOML syntax"},
		{"blocks zero", "blocks_per_stake = 0\n", 1, "blocks_per_stake", "between 1 and 9999"},
		{"blocks too many", "blocks_per_stake = 10000\n", 1, "blocks_per_stake", "got 10000"},
		{"language", "language = \"de\"\n", 1, "language", `must be "fr" or "en", got "de"`},
		{"language case", "language = \"EN\"\n", 1, "language", `got "EN"`},
		{"language array", "language = [\"fr\"]\n", 1, "language", "got an array"},
		{"idle number", "idle_timeout = 60\n", 1, "idle_timeout", `in quotes such as "60s"`},
		{"idle no unit", "idle_timeout = \"60\"\n", 1, "idle_timeout", `"60" is not a duration`},
		{"idle too short", "idle_timeout = \"500ms\"\n", 1, "idle_timeout", "between 10s and 24h, got 500ms"},
		{"idle too long", "idle_timeout = \"25h\"\n", 1, "idle_timeout", "got 25h0m0s"},
		{"idle negative", "idle_timeout = \"-1m\"\n", 1, "idle_timeout", "between 10s and 24h"},
		{"log level", "log_level = \"verbose\"\n", 1, "log_level", "one of debug, info, warn, error"},
		{"log level bool", "log_level = true\n", 1, "log_level", "must be a string, got true"},
		{"data dir relative", "data_dir = \"data\"\n", 1, "data_dir", "absolute path"},
		{"data dir empty", "data_dir = \"\"\n", 1, "data_dir", "must not be empty"},
		{"data dir date", "data_dir = 2026-12-02\n", 1, "data_dir", "got a date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.body)
			cfg, err := LoadConfig(path)
			if err == nil {
				t.Fatalf("accepted: %+v", cfg)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("not a *ConfigError: %T %v", err, err)
			}
			if ce.File != path || ce.Line != tt.line || ce.Field != tt.field || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("got file %q line %d field %q msg %q\nwant file %q line %d field %q msg containing %q",
					ce.File, ce.Line, ce.Field, ce.Msg, path, tt.line, tt.field, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "config "+path+":") {
				t.Fatalf("the message must start with the file and line: %v", err)
			}
		})
	}
}

func TestLoadConfigSuggestsKey(t *testing.T) {
	_, err := LoadConfig(writeConfig(t, "emision = 2\nlog-level = \"info\"\n"))
	for _, want := range []string{`:1: emision: unknown key (did you mean emission?)`, `:2: log-level: unknown key (did you mean log_level?)`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nshould contain %q", err, want)
		}
	}
}

func TestLoadConfigReportsEveryMistakeInFileOrder(t *testing.T) {
	path := writeConfig(t, "language = \"de\"\nemission = 0\nfoo = 1\n")
	_, err := LoadConfig(path)
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		"config " + path + `:1: language: must be "fr" or "en", got "de"`,
		"config " + path + ":2: emission: must be between 1 and 99 (two digits of the ticket number), got 0",
		"config " + path + ":3: foo: unknown key (known keys: kiosk_id, emission, blocks_per_stake, language, idle_timeout, log_level, data_dir, central, sound)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

func TestConfigEngineAndLevel(t *testing.T) {
	cfg, err := LoadConfig(writeConfig(t, "emission = 4\nblocks_per_stake = 2\nlog_level = \"warn\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Engine()
	if e.Emission != 4 || e.BlocksPerStake != 2 || e.DemoFunds == 0 {
		t.Fatalf("engine config %+v", e)
	}
	if cfg.ZerologLevel().String() != "warn" {
		t.Fatalf("level %v", cfg.ZerologLevel())
	}
}

func TestDefaultConfigPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if p := DefaultConfigPath(); p != "" {
		t.Fatalf("no file yet, got %q", p)
	}
	want := filepath.Join(dir, "starfortune", "starfortune.toml")
	if err := os.MkdirAll(filepath.Dir(want), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if p := DefaultConfigPath(); p != want {
		t.Fatalf("got %q, want %q", p, want)
	}
}

func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		"", "kiosk_id = \"k\"\nemission = 2\n", "[display]\nwidth = 1\n", "idle_timeout = \"1h\"",
		"data_dir = '~/x'", "a.b.\"c\" = 1", "x = \"\"\"\nmulti\n\"\"\"\nlanguage = 1",
		"[[emission]]\n", "emission = 1\n[emission.x]\n", "kiosk_id = { a = 1 }", "log_level = [1, 2]",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.toml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(path)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "config "+path) {
				t.Fatalf("error without the file's name: %T %v", err, err)
			}
			return
		}
		// Whatever was accepted is valid.
		if !kioskIDPattern.MatchString(cfg.KioskID) || cfg.Emission < 1 || cfg.Emission > 99 ||
			cfg.BlocksPerStake < 1 || cfg.BlocksPerStake > 9999 ||
			(cfg.Language != "fr" && cfg.Language != "en") ||
			cfg.IdleTimeout < 10*time.Second || cfg.IdleTimeout > 24*time.Hour ||
			!filepath.IsAbs(cfg.DataDir) {
			t.Fatalf("accepted an invalid config %+v from %q", cfg, data)
		}
	})
}

// FyneApp.toml (read by the fyne CLI for the package) must announce the
// version the program prints.
func TestFyneAppVersionIsTheProgramVersion(t *testing.T) {
	var app struct {
		Details struct{ Version, ID, Icon string }
	}
	if _, err := toml.DecodeFile("FyneApp.toml", &app); err != nil {
		t.Fatal(err)
	}
	if app.Details.Version != version {
		t.Errorf("FyneApp.toml says version %q, the program %q", app.Details.Version, version)
	}
	if _, err := os.Stat(app.Details.Icon); err != nil {
		t.Errorf("FyneApp.toml icon: %v", err)
	}
}
