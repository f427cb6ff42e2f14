package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/sound"
	"starfortune/storage"
	"starfortune/ui/localeenv"
)

// Config is a terminal's settings, read from a TOML file (see
// deploy/starfortune.toml). Every field has a default, so a file only names
// what it changes.
type Config struct {
	Kiosk          string        // kiosk_id: names the terminal in logs
	Emission       uint16        // emission: the emission sold, 1–99
	BlocksPerStake uint32        // blocks_per_stake: blocks of the emission per stake, 1–9999
	Language       string        // language: "fr" or "en"
	IdleTimeout    time.Duration // idle_timeout: "60s"; the attract screen starts after it
	LogLevel       string        // log_level: debug, info, warn or error
	DataDir        string        // data_dir: absolute, or starting with "~/"
	// [central]: a kiosk of a fleet (README "Fleet"); no url: a lone kiosk.
	CentralURL   string        // url: the connection string `central kiosk add` printed
	CentralKiosk string        // kiosk: the kiosk's id
	OfflineGrace time.Duration // offline_grace: selling without the central for at most this; "0s": never

	Sound sound.Settings // the [sound] table: volume, mute, attract (config_sound.go)
}

// DefaultConfig is what a terminal without a configuration file runs.
func DefaultConfig() Config {
	e := engine.DefaultConfig()
	return Config{
		Kiosk:          "kiosk",
		Emission:       e.Emission,
		BlocksPerStake: e.BlocksPerStake,
		Language:       "fr",
		IdleTimeout:    60 * time.Second,
		LogLevel:       "info",
		DataDir:        storage.DefaultDir(),
		OfflineGrace:   engine.DefaultOfflineGrace,

		Sound: sound.DefaultSettings(),
	}
}

// DefaultConfigPath is $XDG_CONFIG_HOME/starfortune/starfortune.toml (by
// default ~/.config/...) when that file exists, and "" otherwise.
func DefaultConfigPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	path := filepath.Join(dir, "starfortune", "starfortune.toml")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// Engine is the emission part of c, with the engine's demo funds.
func (c Config) Engine() engine.Config {
	e := engine.DefaultConfig()
	e.Emission, e.BlocksPerStake = c.Emission, c.BlocksPerStake
	return e
}

// ZerologLevel is c.LogLevel for the logger; LoadConfig has checked it.
func (c Config) ZerologLevel() zerolog.Level {
	l, err := zerolog.ParseLevel(c.LogLevel)
	if err != nil {
		return zerolog.InfoLevel
	}
	return l
}

// ConfigError is one mistake in a configuration file. LoadConfig joins
// them (errors.Join), in the order of the file; errors.As finds the first.
type ConfigError struct {
	File  string // the file as given to LoadConfig
	Line  int    // from 1; 0 when unknown
	Field string // the TOML key, "" for a syntax error
	Msg   string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("config ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// configKeys are the keys a file may hold, in the documented order.
var configKeys = func() (names []string) {
	for _, k := range (&configFile{}).keys(&Config{}) {
		names = append(names, k.name)
	}
	return append(names, "sound") // a table, read by parseSound
}()

// configFile receives the file's values untyped, so that a value of the
// wrong type gets a message naming its key rather than the decoder's.
type configFile struct {
	KioskID        any `toml:"kiosk_id"`
	Emission       any `toml:"emission"`
	BlocksPerStake any `toml:"blocks_per_stake"`
	Language       any `toml:"language"`
	IdleTimeout    any `toml:"idle_timeout"`
	LogLevel       any `toml:"log_level"`
	DataDir        any `toml:"data_dir"`
	Central        any `toml:"central"`

	Sound any `toml:"sound"`
}

var kioskIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$`)

// LoadConfig reads the TOML file at path over DefaultConfig. An empty path
// gives the defaults; a missing file, a syntax error, an unknown key or a
// bad value is an error naming the file, the line and the key.
func LoadConfig(path string) (Config, error) { return loadConfigOver(path, DefaultConfig()) }

// LoadSettings is what a terminal runs with: the settings file at path (as
// LoadConfig reads it) on a system whose environment getenv reads, started
// with --lang langFlag ("" when not given). This is the one place the
// language is chosen; from the strongest source to the weakest:
//
//  1. the command line's --lang fr|en;
//  2. the settings file's language;
//  3. the system locale: English when the first of LC_ALL, LC_MESSAGES and
//     LANG that is set starts with "en";
//  4. French, the game's language.
func LoadSettings(path, langFlag string, getenv func(string) string) (Config, error) {
	base := DefaultConfig()
	base.Language = localeLanguage(getenv)
	cfg, err := loadConfigOver(path, base)
	if err != nil {
		return cfg, err
	}
	switch langFlag {
	case "":
	case "fr", "en":
		cfg.Language = langFlag
	default:
		return cfg, fmt.Errorf(`--lang must be "fr" or "en", got %q`, langFlag)
	}
	return cfg, nil
}

// localeLanguage is the language the system locale asks for
// (localeenv.Locale): "en" when it starts with "en" ("en_GB.UTF-8", "en"),
// "fr" otherwise ("fr_FR.UTF-8", "C.UTF-8", "de_DE", none).
func localeLanguage(getenv func(string) string) string {
	if _, l := localeenv.Locale(getenv); strings.HasPrefix(l, "en") {
		return "en"
	}
	return "fr"
}

// loadConfigOver reads the TOML file at path over cfg.
func loadConfigOver(path string, cfg Config) (Config, error) {
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return cfg, &ConfigError{File: path, Msg: "no such file"}
		}
		return cfg, &ConfigError{File: path, Msg: err.Error()}
	}
	return parseConfig(path, data, cfg)
}

// parseConfig applies the TOML document data (read from file) over cfg.
func parseConfig(file string, data []byte, cfg Config) (Config, error) {
	var raw configFile
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return cfg, &ConfigError{File: file, Line: pe.Position.Line, Msg: "TOML syntax: " + pe.Message}
		}
		return cfg, &ConfigError{File: file, Msg: "TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	lines := keyLines(data)
	var errs []*ConfigError
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{File: file, Line: lines[key], Field: key, Msg: fmt.Sprintf(format, args...)})
	}
	reportUnknown(md.Undecoded(), lines, bad)
	for _, k := range raw.keys(&cfg) {
		if k.value == nil {
			continue
		}
		if msg := k.set(k.value); msg != "" {
			bad(k.name, "%s", msg)
		}
	}
	if raw.Sound != nil {
		cfg.Sound = parseSound(raw.Sound, cfg.Sound, bad)
	}
	if len(errs) == 0 {
		return cfg, nil
	}
	slices.SortStableFunc(errs, func(a, b *ConfigError) int { return a.Line - b.Line })
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return cfg, errors.Join(joined...)
}

// reportUnknown reports the keys no setting reads, with the nearest known
// one when there is one.
func reportUnknown(undecoded []toml.Key, lines map[string]int, bad func(key, format string, args ...any)) {
	unknown := map[string]bool{}
	for _, k := range undecoded {
		unknown[k.String()] = true
	}
	for _, k := range undecoded {
		key := k.String()
		if slices.Contains(configKeys, k[0]) {
			continue // inside a known key's table value: reported as a type error
		}
		if reportedParent(k, unknown) {
			continue // one error for an unknown table, not one per key in it
		}
		msg := "unknown key"
		if guess := closestKey(k[len(k)-1]); guess != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", guess)
		} else {
			msg += " (known keys: " + strings.Join(configKeys, ", ") + ")"
		}
		if lines[key] == 0 && len(k) > 1 {
			lines[key] = lines[k[0]]
		}
		bad(key, "%s", msg)
	}
}

// configKey is one key of the settings file: its value as decoded (nil
// when absent) and how it sets the configuration, or why it cannot ("").
type configKey struct {
	name  string
	value any
	set   func(v any) (msg string)
}

// keys are the file's keys, in the order of configKeys, each setting cfg.
func (raw *configFile) keys(cfg *Config) []configKey {
	return []configKey{
		{"kiosk_id", raw.KioskID, func(v any) string {
			s, ok := stringValue(v)
			switch {
			case !ok:
				return "must be a string, got " + describe(v)
			case !kioskIDPattern.MatchString(s):
				return fmt.Sprintf("%q is not a valid kiosk id: 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit", s)
			}
			cfg.Kiosk = s
			return ""
		}},
		{"emission", raw.Emission, func(v any) string {
			n, ok := v.(int64)
			switch {
			case !ok:
				return "must be an integer, got " + describe(v)
			case n < 1 || n > engine.MaxEmission:
				return fmt.Sprintf("must be between 1 and %d (two digits of the ticket number), got %d", engine.MaxEmission, n)
			}
			cfg.Emission = uint16(n)
			return ""
		}},
		{"blocks_per_stake", raw.BlocksPerStake, func(v any) string {
			n, ok := v.(int64)
			switch {
			case !ok:
				return "must be an integer, got " + describe(v)
			case n < 1 || n > 9999:
				return fmt.Sprintf("must be between 1 and 9999 (four digits of the ticket number), got %d", n)
			}
			cfg.BlocksPerStake = uint32(n)
			return ""
		}},
		{"language", raw.Language, func(v any) string {
			s, ok := stringValue(v)
			switch {
			case !ok:
				return "must be a string, got " + describe(v)
			case s != "fr" && s != "en":
				return fmt.Sprintf(`must be "fr" or "en", got %q`, s)
			}
			cfg.Language = s
			return ""
		}},
		{"idle_timeout", raw.IdleTimeout, func(v any) string {
			s, ok := stringValue(v)
			if !ok {
				return `must be a duration in quotes such as "60s" or "2m", got ` + describe(v)
			}
			d, err := time.ParseDuration(s)
			switch {
			case err != nil:
				return fmt.Sprintf(`%q is not a duration: write it like "60s", "90s" or "2m"`, s)
			case d < 10*time.Second || d > 24*time.Hour:
				return fmt.Sprintf("must be between 10s and 24h, got %s", d)
			}
			cfg.IdleTimeout = d
			return ""
		}},
		{"log_level", raw.LogLevel, func(v any) string {
			s, ok := stringValue(v)
			switch {
			case !ok:
				return "must be a string, got " + describe(v)
			case !slices.Contains([]string{"debug", "info", "warn", "error"}, s):
				return fmt.Sprintf("must be one of debug, info, warn, error, got %q", s)
			}
			cfg.LogLevel = s
			return ""
		}},
		{"data_dir", raw.DataDir, func(v any) string {
			s, ok := stringValue(v)
			if !ok {
				return "must be a string, got " + describe(v)
			}
			dir, err := expandDataDir(s)
			if err != nil {
				return err.Error()
			}
			cfg.DataDir = dir
			return ""
		}},
		{"central", raw.Central, func(v any) string { return setCentral(cfg, v) }},
	}
}

// setCentral reads the [central] table: url, kiosk, offline_grace.
func setCentral(cfg *Config, v any) string {
	t, ok := v.(map[string]any)
	if !ok {
		return `must be a table ([central] with url, kiosk, offline_grace), got ` + describe(v)
	}
	for k, v := range t {
		s, ok := stringValue(v)
		if !ok {
			return fmt.Sprintf("%s must be a string, got %s", k, describe(v))
		}
		switch k {
		case "url":
			cfg.CentralURL = s
		case "kiosk":
			if !kioskIDPattern.MatchString(s) {
				return fmt.Sprintf("kiosk %q is not a valid kiosk id: 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit", s)
			}
			cfg.CentralKiosk = s
		case "offline_grace":
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 || d > 7*24*time.Hour {
				return fmt.Sprintf(`offline_grace %q must be a duration from "0s" (never sell offline) to "168h", such as "15m"`, s)
			}
			cfg.OfflineGrace = d
		default:
			return fmt.Sprintf("unknown key %s (known: url, kiosk, offline_grace)", k)
		}
	}
	if cfg.CentralURL == "" {
		return "url is missing: the connection string `starfortune central kiosk add` printed"
	}
	return ""
}

// reportedParent reports whether a table holding k is itself unknown.
func reportedParent(k toml.Key, unknown map[string]bool) bool {
	for i := 1; i < len(k); i++ {
		if unknown[k[:i].String()] {
			return true
		}
	}
	return false
}

func stringValue(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// describe names a decoded TOML value's type for an error message.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case time.Time:
		return "a date"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// expandDataDir accepts an absolute path or one under "~/"; a relative path
// would depend on the directory the service happens to start in.
func expandDataDir(s string) (string, error) {
	switch {
	case s == "":
		return "", errors.New("must not be empty")
	case strings.ContainsRune(s, 0):
		return "", errors.New("must not contain a NUL character")
	case s == "~" || strings.HasPrefix(s, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%q starts with ~ but there is no home directory: %v", s, err)
		}
		return filepath.Join(home, strings.TrimPrefix(s, "~")), nil
	case !filepath.IsAbs(s):
		return "", fmt.Errorf("%q must be an absolute path (or start with ~/)", s)
	}
	return filepath.Clean(s), nil
}

// closestKey is the known key a misspelt one was probably meant to be.
func closestKey(k string) string {
	best, bestD := "", 3 // no more than two edits away
	for _, known := range configKeys {
		if d := editDistance(strings.ToLower(strings.ReplaceAll(k, "-", "_")), known); d < bestD {
			best, bestD = known, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// keyLines maps the keys of a TOML document that parsed (as Key.String
// spells them) to the line defining them. The toml package keeps key
// positions private, so this re-reads the lines; it understands table
// headers and bare, quoted and dotted keys, which is all a settings file
// uses, and leaves out what it cannot place (then errors have no line).
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var table []string
	inMultiline := ""
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if inMultiline != "" {
			if strings.Contains(line, inMultiline) {
				inMultiline = ""
			}
			continue
		}
		s := strings.TrimSpace(line)
		switch {
		case s == "" || s[0] == '#':
			continue
		case strings.HasPrefix(s, "["):
			header := strings.Trim(strings.SplitN(s, "#", 2)[0], " \t[]")
			table = splitKey(header)
			setLine(lines, table, n)
			continue
		}
		eq := keyEnd(s)
		if eq < 0 {
			continue
		}
		key := append(slices.Clone(table), splitKey(s[:eq])...)
		setLine(lines, key, n)
		value := strings.TrimSpace(s[eq+1:])
		for _, q := range []string{`"""`, `'''`} {
			if strings.HasPrefix(value, q) && !strings.Contains(value[3:], q) {
				inMultiline = q
			}
		}
	}
	return lines
}

func setLine(lines map[string]int, key []string, n int) {
	if len(key) == 0 {
		return
	}
	k := toml.Key(key).String()
	if _, seen := lines[k]; !seen {
		lines[k] = n
	}
}

// keyEnd is the index of the '=' ending the key of a key/value line, or -1.
func keyEnd(s string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			return i
		}
	}
	return -1
}

// splitKey splits a dotted key, unquoting its parts.
func splitKey(s string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

// Default is DefaultConfig (temporary: the config helper's API).
func Default() Config { return DefaultConfig() }

// DefaultPath is DefaultConfigPath.
func DefaultPath() string { return DefaultConfigPath() }

// Load is LoadSettings.
func Load(path, langFlag string, getenv func(string) string) (Config, error) {
	return LoadSettings(path, langFlag, getenv)
}

// ValidKioskID says whether s can name a kiosk of a fleet.
func ValidKioskID(s string) bool { return kioskIDPattern.MatchString(s) }
