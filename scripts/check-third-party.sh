#!/bin/sh
# Checks that each copy under third_party/ is its upstream module, as the Go
# module proxy serves it, plus its .patch and nothing else: it copies the
# vendored files from the module, applies the patch, and diffs the result
# with the copy. Run by `make test`.
#
#   third_party/badger = github.com/dgraph-io/badger/v4 v4.9.6 + badger.patch
#   third_party/fyne   = fyne.io/fyne/v2 v2.7.1           + fyne.patch
#
# After changing a copy, `scripts/check-third-party.sh --regenerate NAME`
# writes third_party/NAME.patch anew (diff -ruN from the upstream files,
# without timestamps), then checks.
set -eu
cd "$(dirname "$0")/.."
regenerate=
if [ "${1:-}" = "--regenerate" ]; then
	regenerate=${2:?usage: check-third-party.sh [--regenerate NAME]}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The go.mod replaces point the build at our copies; ask for upstream from a
# throwaway module so the download is the proxy's.
(cd "$tmp" && go mod init x >/dev/null 2>&1)

# upstream NAME MODULE VERSION: $tmp/NAME-VERSION, the upstream version of
# each file third_party/NAME has (a file upstream lacks must be one the
# patch creates, unless the patch is being regenerated).
upstream() {
	name=$1 module=$2 version=$3
	mod=$(cd "$tmp" && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$mod" ] || { echo "check-third-party: cannot download $module $version" >&2; exit 1; }
	up="$tmp/$name-$version"
	mkdir -p "$up"
	(cd "third_party/$name" && find . -type f) | while read -r f; do
		if [ ! -f "$mod/$f" ]; then
			[ "$regenerate" = "$name" ] && continue
			grep -qx "+++ third_party/$name/${f#./}" "third_party/$name.patch" && continue
			echo "check-third-party: third_party/$name/$f is neither in upstream $version nor made by $name.patch" >&2
			exit 1
		fi
		mkdir -p "$up/$(dirname "$f")"
		cp "$mod/$f" "$up/$f"
	done
	chmod -R u+w "$up"
}

check() { # check NAME MODULE VERSION
	name=$1 version=$3
	upstream "$@"
	if [ "$regenerate" = "$name" ]; then
		mkdir -p "$tmp/w/third_party"
		mv "$up" "$tmp/w/$name-$version"
		cp -a "third_party/$name" "$tmp/w/third_party/"
		(cd "$tmp/w" && diff -ruN "$name-$version" "third_party/$name") |
			sed -E 's/^((---|\+\+\+) [^	]*)	.*$/\1/' >"third_party/$name.patch" || true
		echo "third_party/$name.patch regenerated"
		rm -rf "$tmp/w"
		regenerate=
		upstream "$@"
	fi
	patch -s -p1 -d "$up" <"third_party/$name.patch"
	if ! diff -r "$up" "third_party/$name" >"$tmp/diff"; then
		echo "check-third-party: third_party/$name differs from upstream $version + $name.patch:" >&2
		cat "$tmp/diff" >&2
		exit 1
	fi
	echo "third_party/$name = upstream $2 $version + $name.patch"
}
check badger github.com/dgraph-io/badger/v4 v4.9.6
check fyne fyne.io/fyne/v2 v2.7.1
