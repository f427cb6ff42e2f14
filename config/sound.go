package config

import "fmt"

// soundKeys are the keys of the settings file's [sound] table.
var soundKeys = []string{"volume", "mute", "attract"}

// sound reads the [sound] table t (which table has checked) into
// p.cfg.Sound, a sound.Settings:
//
//	[sound]
//	volume = 80      # 0 to 100 per cent
//	mute = false     # true: no sound at all
//	attract = false  # true: the attract screen chimes
func (p *parser) sound(t map[string]any) {
	s := &p.cfg.Sound
	p.check("sound.volume", t["volume"], func(v any) string {
		n, ok := v.(int64)
		switch {
		case !ok:
			return "must be an integer from 0 to 100 (per cent), got " + describe(v)
		case n < 0 || n > 100:
			return fmt.Sprintf("must be between 0 and 100 (per cent), got %d", n)
		}
		s.Volume = int(n)
		return ""
	})
	for _, k := range []struct {
		name string
		to   *bool
	}{{"mute", &s.Mute}, {"attract", &s.Attract}} {
		p.check("sound."+k.name, t[k.name], func(v any) string {
			b, ok := v.(bool)
			if !ok {
				return "must be true or false, got " + describe(v)
			}
			*k.to = b
			return ""
		})
	}
}
