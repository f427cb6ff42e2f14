//go:build wasm || test_web_driver

package glfw

func initWindowHints() {}
