package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starfortune/config"
	"starfortune/engine"
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

// noEnv is a system without a locale.
func noEnv(string) string { return "" }

// load reads the file at path as the program does without --lang.
func load(path string) (config.Config, error) { return config.Load(path, "", noEnv) }

func TestLoadWithoutFileGivesDefaults(t *testing.T) {
	cfg, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	if cfg != config.Default() {
		t.Fatalf("Load(\"\") = %+v, want the defaults %+v", cfg, config.Default())
	}
	if cfg.Kiosk != "kiosk" || cfg.Language != "fr" || cfg.IdleTimeout != time.Minute || cfg.LogLevel != "info" || cfg.Emission != 1 {
		t.Fatalf("unexpected defaults %+v", cfg)
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.toml")
	_, err := load(path)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.File != path || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestLoadExampleFile(t *testing.T) {
	path := filepath.Join("..", "deploy", "starfortune.toml")
	cfg, err := load(path)
	if err != nil {
		t.Fatalf("the example configuration must load: %v", err)
	}
	if cfg.Kiosk == config.DefaultKiosk {
		t.Errorf("the example should show a kiosk id, got %+v", cfg)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, "# "), "kiosk =") {
			t.Errorf("the example shows the deprecated [central] kiosk: %q", line)
		}
	}
}

func TestLoadGood(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	def := config.Default()
	tests := []struct {
		name string
		body string
		want func(c *config.Config)
	}{
		{"empty file", "", func(*config.Config) {}},
		{"comments only", "# nothing\n\n  # here\n", func(*config.Config) {}},
		{"every key", `
kiosk_id = "gare-nord-7"
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
url = "host=/run/postgresql dbname=starfortune user=sf_k_gare-nord-7"
kiosk = "gare-nord-7"
offline_grace = "5m"
heartbeat_every = "45s"

[players]
reality_check = "30m"
payout_threshold = 500
handpay_threshold = "1500.00"
idle_logout = "2m"
cooling_off = "72h"
`, func(c *config.Config) {
			*c = config.Config{Kiosk: "gare-nord-7", Emission: 3, BlocksPerStake: 250, Language: "en",
				IdleTimeout: 150 * time.Second, LogLevel: "debug", DataDir: "/var/lib/starfortune",
				Sound:      sound.Settings{Volume: 35, Mute: true, Attract: true},
				CentralURL: "host=/run/postgresql dbname=starfortune user=sf_k_gare-nord-7", OfflineGrace: 5 * time.Minute,
				HeartbeatEvery: 45 * time.Second, Protection: engine.Protection{RealityCheck: 30 * time.Minute, PayoutThreshold: 50_000,
					HandpayThreshold: 150_000, IdleLogout: 2 * time.Minute, CoolingOff: 72 * time.Hour, PINTries: 5}}
		}},
		{"strict offline mode", "[central]\nurl = \"u\"\noffline_grace = \"0s\"\n", func(c *config.Config) { c.CentralURL, c.OfflineGrace = "u", 0 }},
		{"behind a pooler", "kiosk_id = \"k7\"\n[central]\nurl = \"u\"\ncall_key = \"" + strings.Repeat("ab", 32) + "\"\n", func(c *config.Config) {
			c.Kiosk, c.CentralURL, c.CentralCallKey = "k7", "u", strings.Repeat("ab", 32)
		}},
		{"limits", "emission = 99\nblocks_per_stake = 9999\nidle_timeout = \"10s\"\n", func(c *config.Config) {
			c.Emission, c.BlocksPerStake, c.IdleTimeout = 99, 9999, 10*time.Second
		}},
		{"home directory", `data_dir = "~/kiosk/data"`, func(c *config.Config) { c.DataDir = filepath.Join(home, "kiosk", "data") }},
		{"cleaned path", `data_dir = "/srv//sf/../starfortune/"`, func(c *config.Config) { c.DataDir = "/srv/starfortune" }},
		{"literal strings and inline comments", "log_level = 'warn' # quieter\nlanguage='fr'", func(c *config.Config) { c.LogLevel = "warn" }},
		{"quoted keys", `"kiosk_id" = "k1"`, func(c *config.Config) { c.Kiosk = "k1" }},
		{"kiosk id in a fleet", "kiosk_id = \"caisse-1\"\n[central]\nurl = \"u\"\n", func(c *config.Config) { c.Kiosk, c.CentralURL = "caisse-1", "u" }},
		{"deprecated [central] kiosk sets the kiosk id", "[central]\nurl = \"u\"\nkiosk = \"caisse_2\"\n", func(c *config.Config) { c.Kiosk, c.CentralURL = "caisse_2", "u" }},
		{"deprecated [central] kiosk agreeing with kiosk_id", "kiosk_id = \"k1\"\n[central]\nurl = \"u\"\nkiosk = \"k1\"\n", func(c *config.Config) { c.Kiosk, c.CentralURL = "k1", "u" }},
		{"inline central table", "central = { url = \"u\", kiosk = \"k9\" }\n", func(c *config.Config) { c.Kiosk, c.CentralURL = "k9", "u" }},
		{"byte order mark", "\ufeffkiosk_id = \"k1\"\n", func(c *config.Config) { c.Kiosk = "k1" }},
		{"longest kiosk id", "kiosk_id = \"" + strings.Repeat("k", 32) + "\"\n", func(c *config.Config) { c.Kiosk = strings.Repeat("k", 32) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := def
			tt.want(&want)
			got, err := load(writeConfig(t, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadBad(t *testing.T) {
	const kioskRule = "not a valid kiosk id: 1 to 32 characters among a-z, 0-9, _ and -, starting with a letter or digit"
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
		{"unknown dotted keys", "language = \"fr\"\ndisplay.width = 1280\ndisplay.height = 1024\n", 2, "display.width", "unknown key"},
		{"unknown table and its subtable", "[display.sub]\nx = 1\n[display]\nw = 1\n", 3, "display", "unknown key"},
		{"key in a table", "[kiosk]\nlanguage = \"en\"\n", 1, "kiosk", "unknown key"},
		{"central not a table", "central = \"u\"\n", 1, "central", "must be a table ([central] with url, call_key, kiosk, offline_grace, heartbeat_every), got the string \"u\""},
		{"central array of tables", "[[central]]\nurl = \"u\"\n", 1, "central", "must be a table ([central] with url, call_key, kiosk, offline_grace, heartbeat_every), got an array"},
		{"central without url", "[central]\nkiosk = \"k1\"\n", 1, "central", "url is missing"},
		{"central empty url", "[central]\nurl = \"\"\n", 1, "central", "url is missing"},
		{"central url number", "[central]\nurl = 5\n", 2, "central.url", "must be a string, got the integer 5"},
		{"central bad grace", "[central]\nurl = \"u\"\noffline_grace = \"-1m\"\n", 3, "central.offline_grace", `"-1m" must be a duration from "0s" (never sell offline) to "168h"`},
		{"central grace too long", "[central]\nurl = \"u\"\noffline_grace = \"169h\"\n", 3, "central.offline_grace", `to "168h"`},
		{"central bad kiosk", "[central]\nurl = \"u\"\nkiosk = \"k 1\"\n", 3, "central.kiosk", `"k 1" is ` + kioskRule},
		{"central kiosk number", "[central]\nurl = \"u\"\nkiosk = 1\n", 3, "central.kiosk", "must be a string, got the integer 1"},
		{"central call key too short", "kiosk_id = \"k7\"\n[central]\nurl = \"u\"\ncall_key = \"abcd\"\n", 4, "central.call_key", "must be the 64 hexadecimal digits"},
		{"central call key not hex", "kiosk_id = \"k7\"\n[central]\nurl = \"u\"\ncall_key = \"" + strings.Repeat("zz", 32) + "\"\n", 4, "central.call_key", "must be the 64 hexadecimal digits"},
		{"central call key without kiosk id", "[central]\nurl = \"u\"\ncall_key = \"" + strings.Repeat("ab", 32) + "\"\n", 3, "central.call_key", "names no kiosk"},
		{"central unknown key", "[central]\nurl = \"u\"\nuser = \"x\"\n", 3, "central.user", "unknown key (the [central] table has url, call_key, kiosk, offline_grace, heartbeat_every)"},
		{"central unknown subtable", "[central]\nurl = \"u\"\n[central.tls]\nca = \"x\"\n", 3, "central.tls", "unknown key (the [central] table has"},
		{"kiosk id and [central] kiosk differ", "kiosk_id = \"k1\"\n[central]\nurl = \"u\"\nkiosk = \"k2\"\n", 4, "central.kiosk",
			`"k2" differs from kiosk_id "k1": [central] kiosk is the former name of kiosk_id; keep kiosk_id alone`},
		{"kiosk id and [central] kiosk differ, dotted", "central.url = \"u\"\n\ncentral.kiosk = \"k2\"\nkiosk_id = \"k1\"\n", 3, "central.kiosk", `differs from kiosk_id "k1"`},
		{"kiosk id type", "kiosk_id = 7\n", 1, "kiosk_id", "must be a string, got the integer 7"},
		{"kiosk id chars", "kiosk_id = \"kiosk 7\"\n", 1, "kiosk_id", "not a valid kiosk id"},
		{"kiosk id empty", "kiosk_id = \"\"\n", 1, "kiosk_id", "not a valid kiosk id"},
		{"kiosk id too long", "kiosk_id = \"" + strings.Repeat("k", 33) + "\"\n", 1, "kiosk_id", "1 to 32"},
		{"kiosk id with a dot: not a fleet id", "kiosk_id = \"gare-nord.7\"\n", 1, "kiosk_id", `"gare-nord.7" is ` + kioskRule},
		{"kiosk id in capitals: not a fleet id", "kiosk_id = \"Caisse-1\"\n", 1, "kiosk_id", kioskRule},
		{"kiosk id starting with a dash", "kiosk_id = \"-k\"\n", 1, "kiosk_id", kioskRule},
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
		{"cooling-off too short", "[players]\ncooling_off = \"12h\"\n", 1, "players", "cooling_off 12h0m0s (24 hours to 30 days)"},
		{"hand-pay above 2000", "[players]\nhandpay_threshold = 5000\n", 1, "players", "handpay_threshold 5000.00 EUR"},
		{"reality check not a duration", "[players]\nreality_check = 60\n", 2, "players.reality_check", "must be a string"},
		{"idle no unit", "idle_timeout = \"60\"\n", 1, "idle_timeout", `"60" is not a duration`},
		{"idle too short", "idle_timeout = \"500ms\"\n", 1, "idle_timeout", "between 10s and 24h, got 500ms"},
		{"idle too long", "idle_timeout = \"25h\"\n", 1, "idle_timeout", "got 25h0m0s"},
		{"idle negative", "idle_timeout = \"-1m\"\n", 1, "idle_timeout", "between 10s and 24h"},
		{"log level", "log_level = \"verbose\"\n", 1, "log_level", "one of debug, info, warn, error"},
		{"log level bool", "log_level = true\n", 1, "log_level", "must be a string, got true"},
		{"data dir relative", "data_dir = \"data\"\n", 1, "data_dir", "absolute path"},
		{"data dir empty", "data_dir = \"\"\n", 1, "data_dir", "must not be empty"},
		{"data dir NUL", "data_dir = \"/a\\u0000b\"\n", 1, "data_dir", "must not contain a NUL character"},
		{"data dir date", "data_dir = 2026-12-02\n", 1, "data_dir", "got a date"},
		{"data dir date-time", "data_dir = 2026-12-02T10:00:00Z\n", 1, "data_dir", "got a date"},
		{"line after a multi-line string", "data_dir = \"\"\"\n/multi\n\"\"\"\nlanguage = 1\n", 4, "language", "must be a string, got the integer 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.body)
			cfg, err := load(path)
			if err == nil {
				t.Fatalf("accepted: %+v", cfg)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("not a *config.Error: %T %v", err, err)
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

func TestLoadErrorMessage(t *testing.T) {
	path := writeConfig(t, "# settings\n\nkiosk_id = \"k1\"\nemission = 1\nlanguage = \"fr\"\n\nidle_timeout = \"5s\"\n")
	_, err := load(path)
	want := "config " + path + ":7: idle_timeout: must be between 10s and 24h, got 5s"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// A table unknown is one mistake, not one per key in it.
func TestLoadReportsAnUnknownTableOnce(t *testing.T) {
	path := writeConfig(t, "[display.sub]\nx = 1\n[display]\nw = 1\n[[screens]]\n[[screens]]\nlog.level = 1\n")
	_, err := load(path)
	known := " (known keys: kiosk_id, emission, blocks_per_stake, language, idle_timeout, log_level, data_dir, tpm, central, sound, players)"
	want := []string{
		"config " + path + ":3: display: unknown key" + known,
		"config " + path + ":5: screens: unknown key" + known,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Fatalf("got\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

func TestLoadSuggestsKey(t *testing.T) {
	_, err := load(writeConfig(t, "emision = 2\nlog-level = \"info\"\n"))
	for _, want := range []string{`:1: emision: unknown key (did you mean emission?)`, `:2: log-level: unknown key (did you mean log_level?)`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nshould contain %q", err, want)
		}
	}
}

func TestLoadReportsEveryMistakeInFileOrder(t *testing.T) {
	path := writeConfig(t, "language = \"de\"\nemission = 0\nfoo = 1\n[central]\nkiosk = \"K\"\n")
	_, err := load(path)
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{
		"config " + path + `:1: language: must be "fr" or "en", got "de"`,
		"config " + path + ":2: emission: must be between 1 and 99 (two digits of the ticket number), got 0",
		"config " + path + ":3: foo: unknown key (known keys: kiosk_id, emission, blocks_per_stake, language, idle_timeout, log_level, data_dir, tpm, central, sound, players)",
		"config " + path + ":4: central: url is missing: the connection string `starfortune central kiosk add` printed",
		"config " + path + `:5: central.kiosk: "K" is not a valid kiosk id: 1 to 32 characters among a-z, 0-9, _ and -, starting with a letter or digit`,
	}
	if err.Error() != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

func TestConfigEngineAndLevel(t *testing.T) {
	cfg, err := load(writeConfig(t, "emission = 4\nblocks_per_stake = 2\nlog_level = \"warn\"\n"))
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
	if l := config.Default().ZerologLevel().String(); l != "info" {
		t.Fatalf("default level %v", l)
	}
}

func TestKiosk(t *testing.T) {
	for _, id := range []string{"kiosk", "k", "0", "caisse-1", "gare_nord-7", strings.Repeat("a", 32)} {
		if err := config.CheckKiosk(id); err != nil {
			t.Errorf("CheckKiosk(%q): %v", id, err)
		}
	}
	for _, id := range []string{"", "-k", "_k", "K1", "k.1", "k 1", "caissé", strings.Repeat("a", 33)} {
		if err := config.CheckKiosk(id); err == nil || !strings.Contains(err.Error(), "1 to 32 characters among a-z, 0-9, _ and -") {
			t.Errorf("CheckKiosk(%q) = %v", id, err)
		}
	}
	// In a fleet, a kiosk whose settings name none takes its connection's id.
	for body, want := range map[string]string{
		"[central]\nurl = \"u\"\n":                       "",
		"kiosk_id = \"c1\"\n[central]\nurl = \"u\"\n":    "c1",
		"[central]\nurl = \"u\"\nkiosk = \"c2\"\n":       "c2",
		"kiosk_id = \"kiosk\"\n[central]\nurl = \"u\"\n": "",
	} {
		cfg, err := load(writeConfig(t, body))
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.FleetKiosk(); got != want {
			t.Errorf("%q: FleetKiosk() = %q, want %q", body, got, want)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if p := config.DefaultPath(); p != "" {
		t.Fatalf("no file yet, got %q", p)
	}
	want := filepath.Join(dir, "starfortune", "starfortune.toml")
	if err := os.MkdirAll(filepath.Dir(want), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if p := config.DefaultPath(); p != want {
		t.Fatalf("got %q, want %q", p, want)
	}
}

func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"", "kiosk_id = \"k\"\nemission = 2\n", "[display]\nwidth = 1\n", "idle_timeout = \"1h\"",
		"data_dir = '~/x'", "a.b.\"c\" = 1", "x = \"\"\"\nmulti\n\"\"\"\nlanguage = 1",
		"[[emission]]\n", "emission = 1\n[emission.x]\n", "kiosk_id = { a = 1 }", "log_level = [1, 2]",
		"kiosk_id = \"a\"\n[central]\nurl = \"u\"\nkiosk = \"b\"\n", "central = { url = \"u\", kiosk = 1 }",
		"[sound]\nvolume = 5\n[central]\nurl = 'u'\noffline_grace = '0s'\n",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.toml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := load(path)
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "config "+path) {
				t.Fatalf("error without the file's name: %T %v", err, err)
			}
			return
		}
		// Whatever was accepted is valid.
		if config.CheckKiosk(cfg.Kiosk) != nil || cfg.Emission < 1 || cfg.Emission > 99 ||
			cfg.BlocksPerStake < 1 || cfg.BlocksPerStake > 9999 ||
			(cfg.Language != "fr" && cfg.Language != "en") ||
			cfg.IdleTimeout < 10*time.Second || cfg.IdleTimeout > 24*time.Hour ||
			!filepath.IsAbs(cfg.DataDir) || cfg.OfflineGrace < 0 || cfg.OfflineGrace > 168*time.Hour ||
			cfg.Sound.Volume < 0 || cfg.Sound.Volume > 100 {
			t.Fatalf("accepted an invalid config %+v from %q", cfg, data)
		}
	})
}

func TestHoldsPassword(t *testing.T) {
	for conn, want := range map[string]bool{
		"host=/run/postgresql dbname=starfortune user=k1":               false,
		"host=c.example dbname=sf user=k1 password=s3cret":              true,
		"password='a b' host=x":                                         true,
		"host=x passfile=/etc/pgpass":                                   false,
		"postgres://k1:s3cret@central.example/starfortune":              true,
		"postgresql://k1@central.example/starfortune?password=s3cret":   true,
		"postgres://k1@central.example/starfortune?sslmode=verify-full": false,
	} {
		if got := config.HoldsPassword(conn); got != want {
			t.Errorf("HoldsPassword(%q) = %v, want %v", conn, got, want)
		}
	}
}

// A settings file that holds the central's password must be its owner's
// alone: readable by others, it is refused, naming the file and the fix.
func TestSettingsFileWithAPasswordIsPrivate(t *testing.T) {
	path := writeConfig(t, "[central]\nurl = \"host=c.example user=k1 password=s3cret\"\n")
	if _, err := load(path); err != nil {
		t.Fatalf("mode 600: %v", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := load(path)
	var cerr *config.Error
	if !errors.As(err, &cerr) || cerr.Field != "central.url" || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Fatalf("mode 644: %v", err)
	}
	// Without a password (peer or certificate authentication) any mode will do.
	open := writeConfig(t, "[central]\nurl = \"host=/run/postgresql user=k1\"\n")
	os.Chmod(open, 0o644)
	if _, err := load(open); err != nil {
		t.Fatalf("no password, mode 644: %v", err)
	}
}

func TestHeartbeatEveryBounds(t *testing.T) {
	for _, v := range []string{"0s", "500ms", "11m", "often"} {
		_, err := load(writeConfig(t, "[central]\nurl = \"u\"\nheartbeat_every = \""+v+"\"\n"))
		if err == nil || !strings.Contains(err.Error(), "central.heartbeat_every") {
			t.Errorf("heartbeat_every = %q: %v", v, err)
		}
	}
}
