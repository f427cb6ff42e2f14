// Package config is a terminal's settings file (TOML, see
// deploy/starfortune.toml): its keys, their defaults and their validation.
// A mistake in the file is an *Error naming the file, the line and the key.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/internal/localeenv"
	"starfortune/sound"
	"starfortune/storage"
)

// Config is a terminal's settings. Every field has a default (Default), so
// a file only names what it changes. The comments give each field's key.
type Config struct {
	// kiosk_id: names the terminal in the logs and is its id in a fleet
	// (CheckKiosk's rule). [central] kiosk is its former, deprecated name.
	Kiosk          string
	Emission       uint16        // emission: the emission sold, 1–99
	BlocksPerStake uint32        // blocks_per_stake: blocks of the emission per stake, 1–9999
	Language       string        // language: "fr" or "en"
	IdleTimeout    time.Duration // idle_timeout: "60s"; the attract screen starts after it
	LogLevel       string        // log_level: debug, info, warn or error
	DataDir        string        // data_dir: absolute, or starting with "~/"
	// tpm: the TPM 2.0 whose NV counter anchors the data outside its
	// directory (/dev/tpmrm0, or a software TPM's socket); "": none.
	TPM string
	// [central]: a kiosk of a fleet (docs/fleet.md); no url: a lone kiosk.
	CentralURL string // url: the connection string `central kiosk add` printed
	// call_key: the kiosk's call key (`central kiosk add` printed it, 64
	// hex digits), when url is the pooled role's through a pooler
	// (`central pooler`): each call proves the kiosk with it. "": url is
	// the kiosk's own role.
	CentralCallKey string
	OfflineGrace   time.Duration // offline_grace: selling without the central for at most this; "0s": never
	// heartbeat_every: how often the kiosk tells the central it lives when
	// nothing else brings it there (engine.DefaultHeartbeatEvery)
	HeartbeatEvery time.Duration

	Sound sound.Settings // the [sound] table: volume, mute, attract (sound.go)
	// [players]: reality_check, payout_threshold, handpay_threshold,
	// idle_logout, cooling_off (engine.Protection, SPEC §10)
	Protection engine.Protection
}

// DefaultKiosk is the kiosk's name when the settings give none.
const DefaultKiosk = "kiosk"

// Default is what a terminal without a settings file runs.
func Default() Config {
	e := engine.DefaultConfig()
	return Config{
		Kiosk:          DefaultKiosk,
		Emission:       e.Emission,
		BlocksPerStake: e.BlocksPerStake,
		Language:       "fr",
		IdleTimeout:    60 * time.Second,
		LogLevel:       "info",
		DataDir:        storage.DefaultDir(),
		OfflineGrace:   engine.DefaultOfflineGrace,
		HeartbeatEvery: engine.DefaultHeartbeatEvery,

		Sound:      sound.DefaultSettings(),
		Protection: engine.DefaultProtection(),
	}
}

// DefaultPath is $XDG_CONFIG_HOME/starfortune/starfortune.toml (by default
// ~/.config/...) when that file exists, and "" otherwise.
func DefaultPath() string {
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
	e.Emission, e.BlocksPerStake, e.Protection = c.Emission, c.BlocksPerStake, c.Protection
	return e
}

// ZerologLevel is c.LogLevel for the logger; Load has checked it.
func (c Config) ZerologLevel() zerolog.Level {
	l, err := zerolog.ParseLevel(c.LogLevel)
	if err != nil {
		return zerolog.InfoLevel
	}
	return l
}

// FleetKiosk is the kiosk's id for engine.FleetConfig.Kiosk: c.Kiosk, or ""
// while it is DefaultKiosk, so that a kiosk whose settings name no id takes
// the one of its central connection (as a [central] table without kiosk
// always did). A fleet kiosk really called "kiosk" is thus not checked
// against its connection.
func (c Config) FleetKiosk() string {
	if c.Kiosk == DefaultKiosk {
		return ""
	}
	return c.Kiosk
}

var kioskPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// CheckKiosk says why id cannot be a kiosk's id, or nil when it can: the
// central's rule (central.ErrBadKioskID), 1 to 32 characters among a-z,
// 0-9, _ and -, starting with a letter or digit.
func CheckKiosk(id string) error {
	if kioskPattern.MatchString(id) {
		return nil
	}
	return fmt.Errorf("%q is not a valid kiosk id: 1 to 32 characters among a-z, 0-9, _ and -, starting with a letter or digit", id)
}

// Error is one mistake in a settings file. Load joins them (errors.Join),
// in the order of the file; errors.As finds the first.
type Error struct {
	File  string // the file as given to Load
	Line  int    // from 1; 0 when unknown
	Field string // the TOML key ("central.url"), "" for a syntax error
	Msg   string
}

// Error is "config FILE:LINE: KEY: MSG", without the parts that are unknown.
func (e *Error) Error() string {
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

// Load is what a terminal runs with: the settings file at path over
// Default ("" for none), on a system whose environment getenv reads,
// started with --lang langFlag ("" when not given). A missing file, a
// syntax error, an unknown key or a bad value is an error joining *Error
// values. This is the one place the language is chosen; from the strongest
// source to the weakest:
//
//  1. the command line's --lang fr|en;
//  2. the settings file's language;
//  3. the system locale: English when the first of LC_ALL, LC_MESSAGES and
//     LANG that is set starts with "en";
//  4. French, the game's language.
func Load(path, langFlag string, getenv func(string) string) (Config, error) {
	cfg := Default()
	cfg.Language = localeLanguage(getenv)
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return cfg, &Error{File: path, Msg: "no such file"}
		case err != nil:
			return cfg, &Error{File: path, Msg: err.Error()}
		}
		if cfg, err = parse(path, data, cfg); err != nil {
			return cfg, err
		}
		if HoldsPassword(cfg.CentralURL) || cfg.CentralCallKey != "" {
			if err := CheckPrivate(path); err != nil {
				return cfg, &Error{File: path, Field: "central.url", Msg: err.Error()}
			}
		}
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
