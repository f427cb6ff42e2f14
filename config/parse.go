package config

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"starfortune/engine"
)

// file receives the file's values untyped, so that a value of the wrong
// type gets a message naming its key rather than the decoder's. The
// decoder's strict mode reports the top-level keys it has no field for;
// the [central] and [sound] tables are checked by table.
type file struct {
	Kiosk          any `toml:"kiosk_id"`
	Emission       any `toml:"emission"`
	BlocksPerStake any `toml:"blocks_per_stake"`
	Language       any `toml:"language"`
	IdleTimeout    any `toml:"idle_timeout"`
	LogLevel       any `toml:"log_level"`
	DataDir        any `toml:"data_dir"`
	TPM            any `toml:"tpm"`
	Central        any `toml:"central"`
	Sound          any `toml:"sound"`
	Players        any `toml:"players"`
}

// topKeys are the keys a file may hold, in the documented order.
var topKeys = func() (names []string) {
	t := reflect.TypeFor[file]()
	for i := range t.NumField() {
		names = append(names, t.Field(i).Tag.Get("toml"))
	}
	return names
}()

var centralKeys = []string{"url", "call_key", "kiosk", "offline_grace", "heartbeat_every"}

var playersKeys = []string{"reality_check", "payout_threshold", "handpay_threshold", "idle_logout", "cooling_off"}

// parser gathers the mistakes of one file while it sets cfg.
type parser struct {
	file  string
	lines map[string]int // keyLines
	cfg   *Config
	errs  []*Error
}

// parse applies the TOML document data, read from path, over cfg.
func parse(path string, data []byte, cfg Config) (Config, error) {
	var f file
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark, as some editors write
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	var unknown *toml.StrictMissingError
	var syntax *toml.DecodeError
	switch {
	case errors.As(err, &unknown): // the values were decoded all the same
	case errors.As(err, &syntax):
		line, _ := syntax.Position()
		return cfg, &Error{File: path, Line: line, Msg: "TOML syntax: " + strings.TrimPrefix(syntax.Error(), "toml: ")}
	case err != nil:
		return cfg, &Error{File: path, Msg: "TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	p := &parser{file: path, lines: keyLines(data), cfg: &cfg}
	if unknown != nil {
		p.unknown(unknown.Errors)
	}
	p.apply(&f)
	if len(p.errs) == 0 {
		return cfg, nil
	}
	slices.SortStableFunc(p.errs, func(a, b *Error) int { return a.Line - b.Line })
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return cfg, errors.Join(errs...)
}

// bad reports a mistake in key's value, on the line of key or else of the
// nearest table holding it.
func (p *parser) bad(key, format string, args ...any) {
	line := p.lines[key]
	for k := key; line == 0 && strings.Contains(k, "."); {
		k = k[:strings.LastIndex(k, ".")]
		line = p.lines[k]
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Field: key, Msg: fmt.Sprintf(format, args...)})
}

// unknown reports the keys no setting reads, a table once (not each key
// in it), with the nearest known key when there is one.
func (p *parser) unknown(errs []toml.DecodeError) {
	errs = slices.Clone(errs) // a table before the keys in it
	slices.SortStableFunc(errs, func(a, b toml.DecodeError) int { return len(a.Key()) - len(b.Key()) })
	reported := map[string]bool{}
	for _, e := range errs {
		k := e.Key()
		if len(k) == 0 || inReported(k, reported) {
			continue
		}
		key := strings.Join(k, ".")
		reported[key] = true
		msg := "unknown key"
		if guess := closestKey(k[len(k)-1]); guess != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", guess)
		} else {
			msg += " (known keys: " + strings.Join(topKeys, ", ") + ")"
		}
		line, _ := e.Position()
		p.errs = append(p.errs, &Error{File: p.file, Line: line, Field: key, Msg: msg})
	}
}

// inReported reports whether k, or a table holding it, was reported.
func inReported(k toml.Key, reported map[string]bool) bool {
	for i := 1; i <= len(k); i++ {
		if reported[strings.Join(k[:i], ".")] {
			return true
		}
	}
	return false
}

// check sets key's value v through set, which says what is wrong with it
// ("" when nothing is); an absent key (nil) keeps its default.
func (p *parser) check(key string, v any, set func(v any) string) {
	if v == nil {
		return
	}
	if msg := set(v); msg != "" {
		p.bad(key, "%s", msg)
	}
}

// apply sets p.cfg from the values of f.
func (p *parser) apply(f *file) {
	c := p.cfg
	p.check("kiosk_id", f.Kiosk, str(func(s string) string { return setKiosk(&c.Kiosk, s) }))
	p.check("emission", f.Emission, integer(1, engine.MaxEmission, "(two digits of the ticket number)",
		func(n int64) { c.Emission = uint16(n) }))
	p.check("blocks_per_stake", f.BlocksPerStake, integer(1, 9999, "(four digits of the ticket number)",
		func(n int64) { c.BlocksPerStake = uint32(n) }))
	p.check("language", f.Language, str(func(s string) string {
		return oneOf(&c.Language, s, `must be "fr" or "en", got %q`, "fr", "en")
	}))
	p.check("idle_timeout", f.IdleTimeout, func(v any) string {
		s, ok := v.(string)
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
		c.IdleTimeout = d
		return ""
	})
	p.check("log_level", f.LogLevel, str(func(s string) string {
		return oneOf(&c.LogLevel, s, "must be one of debug, info, warn, error, got %q", "debug", "info", "warn", "error")
	}))
	p.check("data_dir", f.DataDir, str(func(s string) string {
		dir, err := expandDataDir(s)
		if err != nil {
			return err.Error()
		}
		c.DataDir = dir
		return ""
	}))
	p.check("tpm", f.TPM, str(func(s string) string {
		if s != "" && !filepath.IsAbs(s) {
			return fmt.Sprintf("must be an absolute path (a TPM device such as /dev/tpmrm0), or \"\" for none, got %q", s)
		}
		c.TPM = s
		return ""
	}))
	if t := p.table("central", f.Central, centralKeys); t != nil {
		p.central(t, f.Kiosk)
	}
	if t := p.table("sound", f.Sound, soundKeys); t != nil {
		p.sound(t)
	}
	if t := p.table("players", f.Players, playersKeys); t != nil {
		p.players(t)
	}
}

// players reads the [players] table t: how players are protected.
func (p *parser) players(t map[string]any) {
	pr := &p.cfg.Protection
	duration := func(key string, to *time.Duration) {
		p.check("players."+key, t[key], str(func(s string) string {
			d, err := time.ParseDuration(s)
			if err != nil {
				return fmt.Sprintf(`%q is not a duration: write it like "60m", "3m" or "48h"`, s)
			}
			*to = d
			return ""
		}))
	}
	euros := func(key string, to *engine.Cents) {
		p.check("players."+key, t[key], func(v any) string {
			a, err := engine.ParseAmount(fmt.Sprint(v))
			if err != nil {
				return fmt.Sprintf("must be an amount in euros such as 2000 or \"1000.00\", got %s", describe(v))
			}
			*to = a
			return ""
		})
	}
	duration("reality_check", &pr.RealityCheck)
	euros("payout_threshold", &pr.PayoutThreshold)
	euros("handpay_threshold", &pr.HandpayThreshold)
	duration("idle_logout", &pr.IdleLogout)
	duration("cooling_off", &pr.CoolingOff)
	if err := pr.Check(); err != nil {
		p.bad("players", "%s", strings.TrimPrefix(err.Error(), engine.ErrProtection.Error()+": "))
	}
}

// central reads the [central] table t; kioskID is the file's kiosk_id.
func (p *parser) central(t map[string]any, kioskID any) {
	c := p.cfg
	p.check("central.url", t["url"], str(func(s string) string { c.CentralURL = s; return "" }))
	// The former name of kiosk_id, read for one release.
	p.check("central.kiosk", t["kiosk"], str(func(s string) string {
		if err := CheckKiosk(s); err != nil {
			return err.Error()
		}
		if id, ok := kioskID.(string); ok && CheckKiosk(id) == nil && id != s {
			return fmt.Sprintf("%q differs from kiosk_id %q: [central] kiosk is the former name of kiosk_id; keep kiosk_id alone", s, id)
		}
		c.Kiosk = s
		return ""
	}))
	p.check("central.offline_grace", t["offline_grace"], str(func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > 7*24*time.Hour {
			return fmt.Sprintf(`%q must be a duration from "0s" (never sell offline) to "168h", such as "15m"`, s)
		}
		c.OfflineGrace = d
		return ""
	}))
	p.check("central.heartbeat_every", t["heartbeat_every"], str(func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Second || d > 10*time.Minute {
			return fmt.Sprintf(`%q must be a duration from "1s" to "10m", such as "30s"`, s)
		}
		c.HeartbeatEvery = d
		return ""
	}))
	p.check("central.call_key", t["call_key"], str(func(s string) string {
		if k, err := hex.DecodeString(s); err != nil || len(k) != 32 {
			return "must be the 64 hexadecimal digits `starfortune central kiosk add` printed"
		}
		if id, ok := kioskID.(string); !ok || CheckKiosk(id) != nil {
			return "names no kiosk: a kiosk proving its calls needs its kiosk_id"
		}
		c.CentralCallKey = s
		return ""
	}))
	if url, ok := t["url"].(string); t["url"] == nil || ok && url == "" {
		p.bad("central", "url is missing: the connection string `starfortune central kiosk add` printed")
	}
}

// table is v, the value of the table key name, or nil when v is absent or
// no table; it reports a value that is no table, and keys not in known.
func (p *parser) table(name string, v any, known []string) map[string]any {
	if v == nil {
		return nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		p.bad(name, "must be a table ([%s] with %s), got %s", name, strings.Join(known, ", "), describe(v))
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(known, k) {
			p.bad(name+"."+k, "unknown key (the [%s] table has %s)", name, strings.Join(known, ", "))
		}
	}
	return t
}

// setKiosk sets *to to the kiosk id s, or says why it cannot.
func setKiosk(to *string, s string) string {
	if err := CheckKiosk(s); err != nil {
		return err.Error()
	}
	*to = s
	return ""
}

// str is set for a value that must be a string.
func str(set func(s string) string) func(v any) string {
	return func(v any) string {
		s, ok := v.(string)
		if !ok {
			return "must be a string, got " + describe(v)
		}
		return set(s)
	}
}

// oneOf sets *to to s when it is one of values; otherwise it is the
// message format says of s.
func oneOf(to *string, s, format string, values ...string) string {
	if !slices.Contains(values, s) {
		return fmt.Sprintf(format, s)
	}
	*to = s
	return ""
}

// integer is set for a value that must be an integer from lo to hi, why
// explaining the range.
func integer(lo, hi int64, why string, set func(n int64)) func(v any) string {
	return func(v any) string {
		n, ok := v.(int64)
		switch {
		case !ok:
			return "must be an integer, got " + describe(v)
		case n < lo || n > hi:
			return fmt.Sprintf("must be between %d and %d %s, got %d", lo, hi, why, n)
		}
		set(n)
		return ""
	}
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
	case time.Time, toml.LocalDate, toml.LocalDateTime, toml.LocalTime:
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
	for _, known := range topKeys {
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

// keyLines maps the keys of a document that decoded (parts joined by ".")
// and the tables holding them to the line first defining them, from
// go-toml's parser: table headers, dotted keys and inline tables.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		switch e := p.Expression(); e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = addKey(&p, lines, nil, e.Key())
		case unstable.KeyValue:
			addKeyValue(&p, lines, table, e)
		}
	}
	return lines
}

// addKeyValue adds the key of kv, in table, and those of an inline table
// it holds.
func addKeyValue(p *unstable.Parser, lines map[string]int, table []string, kv *unstable.Node) {
	key := addKey(p, lines, table, kv.Key())
	if v := kv.Value(); v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			if it.Node().Kind == unstable.KeyValue {
				addKeyValue(p, lines, key, it.Node())
			}
		}
	}
}

// addKey adds the dotted key it, under prefix, and each table on its way.
func addKey(p *unstable.Parser, lines map[string]int, prefix []string, it unstable.Iterator) []string {
	key := slices.Clone(prefix)
	for it.Next() {
		key = append(key, string(it.Node().Data))
		k := strings.Join(key, ".")
		if _, seen := lines[k]; !seen {
			lines[k] = p.Shape(it.Node().Raw).Start.Line
		}
	}
	return key
}
