// Package assets holds the files the program embeds: the Star Fortune icon.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var icon []byte

// Icon is the application icon: a golden star and a puck on a night-blue
// square, 512×512 PNG. FyneApp.toml points the fyne CLI at the same file.
func Icon() fyne.Resource { return fyne.NewStaticResource("icon.png", icon) }
