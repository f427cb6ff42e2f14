package config_test

import (
	"errors"
	"strings"
	"testing"

	"starfortune/config"
	"starfortune/sound"
)

func TestSoundSettings(t *testing.T) {
	tests := []struct {
		name string
		body string
		want sound.Settings
	}{
		{"no table: on at 80 %, silent attract screen", "", sound.Settings{Volume: 80}},
		{"volume only", "[sound]\nvolume = 0\n", sound.Settings{Volume: 0}},
		{"full", "[sound]\nvolume = 100\nmute = false\nattract = true\n", sound.Settings{Volume: 100, Attract: true}},
		{"muted", "[sound]\nmute = true\n", sound.Settings{Volume: 80, Mute: true}},
		{"dotted keys", "sound.volume = 55\n", sound.Settings{Volume: 55}},
		{"inline table", "sound = { volume = 20, attract = true }\n", sound.Settings{Volume: 20, Attract: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := load(writeConfig(t, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Sound != tt.want {
				t.Fatalf("got %+v, want %+v", cfg.Sound, tt.want)
			}
		})
	}
}

func TestSoundSettingsBad(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		line  int
		field string
		msg   string
	}{
		{"volume too loud", "[sound]\nvolume = 101\n", 2, "sound.volume", "between 0 and 100 (per cent), got 101"},
		{"volume negative", "[sound]\n\nvolume = -5\n", 3, "sound.volume", "got -5"},
		{"volume fraction", "[sound]\nvolume = 0.8\n", 2, "sound.volume", "integer from 0 to 100 (per cent), got the number 0.8"},
		{"mute string", "[sound]\nmute = \"yes\"\n", 2, "sound.mute", `true or false, got the string "yes"`},
		{"attract number", "[sound]\nattract = 1\n", 2, "sound.attract", "true or false, got the integer 1"},
		{"unknown key", "[sound]\nvolume = 10\nbass = 3\n", 3, "sound.bass", "unknown key (the [sound] table has volume, mute, attract)"},
		{"not a table", "sound = true\n", 1, "sound", "must be a table ([sound] with volume, mute, attract), got true"},
		{"inline table, bad volume", "language = \"fr\"\nsound = { mute = false,\n  volume = 101 }\n", 3, "sound.volume", "got 101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.body)
			_, err := load(path)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *config.Error", err)
			}
			if ce.File != path || ce.Line != tt.line || ce.Field != tt.field || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("got file %q line %d field %q msg %q\nwant line %d field %q msg containing %q", ce.File, ce.Line, ce.Field, ce.Msg, tt.line, tt.field, tt.msg)
			}
		})
	}
}
