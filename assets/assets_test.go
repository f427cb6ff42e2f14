package assets_test

import (
	"bytes"
	"image/png"
	"testing"

	"starfortune/assets"
)

func TestIconIsA512SquarePNG(t *testing.T) {
	res := assets.Icon()
	if res.Name() != "icon.png" {
		t.Errorf("name %q", res.Name())
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(res.Content()))
	if err != nil {
		t.Fatalf("icon is not a PNG: %v", err)
	}
	if cfg.Width != 512 || cfg.Height != 512 {
		t.Errorf("icon is %d×%d, want 512×512", cfg.Width, cfg.Height)
	}
}
