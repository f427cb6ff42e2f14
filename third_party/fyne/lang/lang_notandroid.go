//go:build !android

package lang

func initRuntime() {}
