//go:build !darwin

package fyne

// KeyModifierShortcutDefault is the default key modifier for shortcuts (Control or Command).
//
// Since: 2.2
const KeyModifierShortcutDefault = KeyModifierControl
