package data

//go:generate go run ../../fyne bundle -package data -o bundled.go assets

// FyneLogoTransparent contains the full fyne logo with a transparent background.
var FyneLogoTransparent = resourceLogoPng

// FyneLogo contains the full logo with a background.
var FyneLogo = resourceFynePng
