#!/usr/bin/env bash
# Builds the release: static binaries (CGO_ENABLED=0) for linux, darwin and
# windows on amd64 and arm64, each in an archive with the LICENSE, the
# README and docs/*.md; a SHA-256 checksum file; and for linux the OCI image
# as a file (release/image: the binary on an empty base, no daemon needed).
#
#   release/release.sh                 the tag at HEAD (v1.2.3) names the release
#   release/release.sh --snapshot      any commit: v0.0.0-SNAPSHOT-<commit>
#   TARGETS="linux/amd64" release/release.sh --snapshot    fewer targets
#
# Everything goes to dist/ (git-ignored), emptied first. The version, commit
# and date are stamped with -ldflags -X (ayoayo version prints them); the
# date is the commit's, so a rebuild of one commit makes the same binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

snapshot=0
[[ ${1:-} == --snapshot ]] && snapshot=1
commit=$(git rev-parse HEAD)
date=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)
if ((snapshot)); then
	version=v0.0.0-SNAPSHOT-$(git rev-parse --short=12 HEAD)
else
	version=$(git describe --tags --exact-match --match 'v*' 2>/dev/null) ||
		{ echo "release: HEAD has no v* tag; tag it, or build a --snapshot" >&2; exit 1; }
	[[ -z $(git status --porcelain --untracked-files=no) ]] ||
		{ echo "release: the work tree has changes; commit them first" >&2; exit 1; }
fi
targets=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}

rm -rf dist
mkdir -p dist
ldflags="-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date"
for target in $targets; do
	os=${target%/*} arch=${target#*/}
	name=ayoayo_${version#v}_${os}_${arch}
	exe=ayoayo
	[[ $os == windows ]] && exe=ayoayo.exe
	echo "--- $name"
	mkdir -p "dist/$name"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "dist/$name/$exe" ./cmd/ayoayo
	cp LICENSE README.md "dist/$name/"
	mkdir -p "dist/$name/docs" && cp docs/*.md "dist/$name/docs/"
	# Sorted names, fixed owner and times: the same archive from the same commit.
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$date" -C dist -czf "dist/$name.tar.gz" "$name"
	if [[ $os == linux ]]; then
		(cd release/image && go run . build --binary "../../dist/$name/$exe" --license ../../LICENSE --arch "$arch" \
			--version "$version" --commit "$commit" --date "$date" --out "../../dist/ayoayo_${version#v}_linux_${arch}.oci.tar")
	fi
done
shopt -s nullglob
(cd dist && files=(*.tar.gz *.oci.tar) && sha256sum -- "${files[@]}" >"ayoayo_${version#v}_checksums.txt")
echo "$version" >dist/VERSION
ls -l dist
