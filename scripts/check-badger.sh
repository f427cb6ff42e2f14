#!/bin/sh
# Checks that third_party/badger is upstream Badger v4.9.6, as the Go module
# proxy serves it, plus third_party/badger.patch and nothing else: it copies
# the vendored packages' files from the module, applies the patch, and diffs
# the result with third_party/badger. Run by `make test`.
set -eu
cd "$(dirname "$0")/.."
version=v4.9.6
# The go.mod replace points the build at our copy; ask for upstream from a
# throwaway module so the download is the proxy's.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mod=$(cd "$tmp" && go mod init x >/dev/null 2>&1 && go mod download -json "github.com/dgraph-io/badger/v4@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$mod" ] || { echo "check-badger: cannot download badger $version" >&2; exit 1; }
up="$tmp/badger-$version"
mkdir -p "$up"
# The same files as our copy: every vendored file that upstream has.
(cd third_party/badger && find . -type f) | while read -r f; do
	[ -f "$mod/$f" ] || { echo "check-badger: third_party/badger/$f is not in upstream $version" >&2; exit 1; }
	mkdir -p "$up/$(dirname "$f")"
	cp "$mod/$f" "$up/$f"
done
chmod -R u+w "$up"
patch -s -p1 -d "$up" < third_party/badger.patch
if ! diff -r "$up" third_party/badger >"$tmp/diff"; then
	echo "check-badger: third_party/badger differs from upstream $version + badger.patch:" >&2
	cat "$tmp/diff" >&2
	exit 1
fi
echo "third_party/badger = upstream $version + badger.patch"
