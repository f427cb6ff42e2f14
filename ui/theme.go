package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// starTheme is the night-sky look of the kiosk: deep blue, gold for what
// the player acts on, large text and touch targets. It is always dark.
type starTheme struct{ fyne.Theme }

func newStarTheme() fyne.Theme { return starTheme{theme.DefaultTheme()} }

// The kiosk's palette. The board uses it directly; widgets get it through
// the theme.
var (
	colNight      = color.NRGBA{R: 0x07, G: 0x09, B: 0x22, A: 0xff}
	colPanel      = color.NRGBA{R: 0x14, G: 0x18, B: 0x45, A: 0xff}
	colPanelLine  = color.NRGBA{R: 0x3a, G: 0x40, B: 0x8c, A: 0xff}
	colText       = color.NRGBA{R: 0xf4, G: 0xf2, B: 0xff, A: 0xff}
	colDim        = color.NRGBA{R: 0xa9, G: 0xad, B: 0xdb, A: 0xff}
	colGold       = color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: 0xff}
	colGoldDeep   = color.NRGBA{R: 0xd9, G: 0x8a, B: 0x12, A: 0xff}
	colGoldGlow   = color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: 0x50}
	colRed        = color.NRGBA{R: 0xff, G: 0x6b, B: 0x6b, A: 0xff}
	colGreen      = color.NRGBA{R: 0x6b, G: 0xf0, B: 0x9a, A: 0xff}
	colPeg        = color.NRGBA{R: 0xcf, G: 0xd8, B: 0xff, A: 0xff}
	colPegLit     = color.NRGBA{R: 0xff, G: 0xf1, B: 0xa8, A: 0xff}
	colPuck       = color.NRGBA{R: 0xff, G: 0xd8, B: 0x5a, A: 0xff}
	colPuckEdge   = color.NRGBA{R: 0xa8, G: 0x5f, B: 0x00, A: 0xff}
	colPuckRested = color.NRGBA{R: 0xc9, G: 0xa4, B: 0x4a, A: 0xff}
	colSpotZero   = color.NRGBA{R: 0x1c, G: 0x1f, B: 0x4a, A: 0xf0}
	colSpotWin    = color.NRGBA{R: 0x2e, G: 0x23, B: 0x78, A: 0xf0}
	colSpotBig    = color.NRGBA{R: 0x5b, G: 0x1e, B: 0x86, A: 0xf0}
	colBox        = color.NRGBA{R: 0x3d, G: 0x0f, B: 0x5e, A: 0xf0}
	colRecall     = color.NRGBA{R: 0x4f, G: 0xe3, B: 0xff, A: 0xff}
	colClear      = color.NRGBA{}
)

func (starTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	switch n {
	case theme.ColorNameBackground:
		return colNight
	case theme.ColorNameForeground:
		return colText
	case theme.ColorNamePrimary, theme.ColorNameFocus:
		return colGold
	case theme.ColorNameForegroundOnPrimary:
		return colNight
	case theme.ColorNameButton, theme.ColorNameInputBackground, theme.ColorNameMenuBackground,
		theme.ColorNameOverlayBackground, theme.ColorNameHeaderBackground:
		return colPanel
	case theme.ColorNameDisabledButton:
		return color.NRGBA{R: 0x1a, G: 0x1d, B: 0x3d, A: 0xff}
	case theme.ColorNameDisabled, theme.ColorNamePlaceHolder:
		return color.NRGBA{R: 0x6c, G: 0x70, B: 0x9c, A: 0xff}
	case theme.ColorNameHover:
		return color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0x18}
	case theme.ColorNamePressed:
		return color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0x30}
	case theme.ColorNameSelection:
		return color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: 0x40}
	case theme.ColorNameSeparator, theme.ColorNameInputBorder:
		return colPanelLine
	case theme.ColorNameShadow:
		return color.NRGBA{A: 0x80}
	case theme.ColorNameError:
		return colRed
	case theme.ColorNameSuccess:
		return colGreen
	case theme.ColorNameScrollBar:
		return color.NRGBA{R: 0xa9, G: 0xad, B: 0xdb, A: 0x80}
	}
	return theme.DefaultTheme().Color(n, theme.VariantDark)
}

// Sizes are large: a kiosk is used standing, with fingers.
func (starTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 17
	case theme.SizeNameHeadingText:
		return 30
	case theme.SizeNameSubHeadingText:
		return 21
	case theme.SizeNameCaptionText:
		return 14
	case theme.SizeNamePadding:
		return 5
	case theme.SizeNameInnerPadding:
		return 12
	case theme.SizeNameInputRadius, theme.SizeNameSelectionRadius:
		return 10
	}
	return theme.DefaultTheme().Size(n)
}

// Heights of the touch targets.
const (
	bigButtonHeight   = 72
	stakeButtonHeight = 56
)
