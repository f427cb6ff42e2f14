package config

import (
	"slices"
	"sort"
	"strings"

	"starfortune/sound"
)

// soundKeys are the keys of the settings file's [sound] table.
var soundKeys = []string{"volume", "mute", "attract"}

// parseSound reads the [sound] table v over s, reporting each mistake
// through bad (as parseConfig does for the top-level keys):
//
//	[sound]
//	volume = 80      # 0 to 100 per cent
//	mute = false     # true: no sound at all
//	attract = false  # true: the attract screen chimes
func parseSound(v any, s sound.Settings, bad func(key, format string, args ...any)) sound.Settings {
	t, ok := v.(map[string]any)
	if !ok {
		bad("sound", "must be a table ([sound] with volume, mute, attract), got %s", describe(v))
		return s
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(soundKeys, k) {
			bad("sound."+k, "unknown key (the [sound] table has %s)", strings.Join(soundKeys, ", "))
		}
	}
	if x, ok := t["volume"]; ok {
		if n, ok := x.(int64); !ok {
			bad("sound.volume", "must be an integer from 0 to 100 (per cent), got %s", describe(x))
		} else if n < 0 || n > 100 {
			bad("sound.volume", "must be between 0 and 100 (per cent), got %d", n)
		} else {
			s.Volume = int(n)
		}
	}
	for _, k := range []struct {
		name string
		to   *bool
	}{{"mute", &s.Mute}, {"attract", &s.Attract}} {
		if x, ok := t[k.name]; ok {
			if b, ok := x.(bool); !ok {
				bad("sound."+k.name, "must be true or false, got %s", describe(x))
			} else {
				*k.to = b
			}
		}
	}
	return s
}
