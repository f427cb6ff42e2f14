// Copyright 2015 The Go Authors.  All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

/*
Package mobile is a partial clone of the golang.org/x/mobile/cmd/gomobile package.
It also includes the golang.org/x/mobile/internal/bindata as a subpackage.

The full project, its license and command line tools can be found at https://github.com/golang/mobile

This package is for the purpose of removing a runtime dependency and will be removed in due course.
*/
package mobile
