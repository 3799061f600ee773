#!/usr/bin/env bash
# Builds the release: static binaries (CGO_ENABLED=0) for linux, darwin and
# windows on amd64 and arm64, each in an archive (.tar.gz; .zip for
# windows) with the LICENSE, the README and docs/*.md, and beside each a
# CycloneDX SBOM of the binary (cyclonedx-gomod, pinned as a tool in
# release/tools); for linux the OCI image as a file (release/image: an OCI
# layout holding linux/amd64 and linux/arm64, no daemon needed; it needs
# both linux targets, and a CA bundle: Debian's ca-certificates); and a
# SHA-256 checksum file over all of it. A tagged release is refused when
# the daily puzzles shipped in the binary end less than 180 days after its
# commit's date (see below).
#
#   release/release.sh                 the tag at HEAD (v1.2.3) names the release
#   release/release.sh --snapshot      any commit: v0.0.0-SNAPSHOT-<commit>
#   TARGETS="linux/amd64 linux/arm64" release/release.sh --snapshot    fewer targets
#
# Everything goes to dist/ (git-ignored), emptied first. The version, commit
# and date are stamped with -ldflags -X (ayoayo version prints them), and
# the build stamps the VCS revision, time and state as go build does by
# default (go version -m shows vcs.revision); the date is the commit's, so
# a rebuild of one commit makes the same binaries.
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
# go build finds the VCS only where .git is a directory: a git worktree's
# .git file gives binaries without vcs.revision.
if [[ ! -d .git ]]; then
	echo "release: .git is not a directory (a git worktree?): go build would not stamp the commit; build from a clone" >&2
	((snapshot)) || exit 1
fi
targets=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
# The daily puzzles shipped in the binary (puzzles/ahead) must run well past
# the release: once they end, a fresh server's first daily puzzle waits for
# the endgame table again. A release whose shipped days end less than 180
# days after its commit's date is refused (a snapshot only warns); extend
# the file as docs/puzzles.md ("Shipped with the binary") says.
ahead_until=$(date -u -d "${date%%T*} + 180 days" +%Y-%m-%d)
if ! go run ./cmd/ayoayo puzzles ahead --info shipped --until "$ahead_until"; then
	if ((snapshot)); then
		echo "release: warning: the shipped daily puzzles end before $ahead_until; a release would be refused" >&2
	else
		echo "release: the shipped daily puzzles end before $ahead_until (180 days after $date); make puzzles/ahead/ahead.gob.gz again with more days" >&2
		exit 1
	fi
fi

rm -rf dist
mkdir -p dist
ldflags="-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date"
# The binaries are built as `go install …@version` builds them: outside
# the workspace (go.work takes the tree's client), with the Go client at
# the version the root go.mod requires, served from a module proxy that
# release/tools/modproxy writes from HEAD (go.sum's hash of it is
# checked), every other module from the usual proxy. So the binary and its
# SBOM name that client version, not a directory.
# A module cache of the release's own: the machine's may hold the client
# version from an older tree (a version not yet published is made anew from
# each HEAD), which Go would take over the proxy's and refuse by go.sum.
# Every other module comes from the machine's cache as a proxy, then the
# usual one.
proxy=$(mktemp -d /tmp/ayoayo-release-proxy.XXXXXX)
trap 'rm -rf "$proxy"' EXIT
# The release's tools (the SBOM writer, the image builder) are modules of
# their own, outside the workspace, that never require the client: they
# are built first, from the machine's module cache, so their sources keep
# one directory from run to run and the build cache holds them (a build
# without -trimpath records its sources' directory, and a module cache of
# the release's own is a new directory each run: every run compiled
# go-git, gonum and the rest again, and fetched their zips over the
# network when the machine's cache did not hold them).
machine_modcache=$(go env GOMODCACHE)
(cd release/tools && GOWORK=off go run ./modproxy --out "$proxy/proxy" --version "$version" ../.. >/dev/null)
(cd release/tools && GOWORK=off GOFLAGS= go build -o "$proxy/bin/cyclonedx-gomod" github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod)
(cd release/image && GOWORK=off GOFLAGS= go build -o "$proxy/bin/image" .)
export GOWORK=off GOPROXY="file://$proxy/proxy,file://$machine_modcache/cache/download,$(go env GOPROXY)" \
	GOMODCACHE="$proxy/modcache" GOFLAGS="${GOFLAGS:-} -mod=readonly -modcacherw"
sbom() { (cd release/tools && GOFLAGS= "$proxy/bin/cyclonedx-gomod" bin -json -noserial -notimestamp -std -version "$version" -output "$1" "$2"); }
declare -A linux_binaries=()
for target in $targets; do
	os=${target%/*} arch=${target#*/}
	name=ayoayo_${version#v}_${os}_${arch}
	exe=ayoayo
	[[ $os == windows ]] && exe=ayoayo.exe
	echo "--- $name"
	mkdir -p "dist/$name"
	# -buildvcs=true over a GOFLAGS that may say otherwise: the binary
	# records the commit it was built from.
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=true -ldflags "$ldflags" -o "dist/$name/$exe" ./cmd/ayoayo
	cp LICENSE README.md "dist/$name/"
	mkdir -p "dist/$name/docs" && cp docs/*.md "dist/$name/docs/"
	# Sorted names, fixed owner and times: the same archive from the same commit.
	find "dist/$name" -exec touch -h -d "$date" {} +
	if [[ $os == windows ]]; then
		(cd dist && find "$name" | LC_ALL=C sort | TZ=UTC zip -q -X -D "$name.zip" -@)
	else
		tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="$date" -C dist -czf "dist/$name.tar.gz" "$name"
	fi
	sbom "$PWD/dist/$name.sbom.json" "$PWD/dist/$name/$exe"
	[[ $os == linux ]] && linux_binaries[$arch]=$PWD/dist/$name/$exe
done
if [[ -n ${linux_binaries[amd64]:-} && -n ${linux_binaries[arm64]:-} ]]; then
	(cd release/image && "$proxy/bin/image" build --binary "linux/amd64=${linux_binaries[amd64]}" --binary "linux/arm64=${linux_binaries[arm64]}" \
		--license ../../LICENSE --ca-certificates "${CA_CERTIFICATES:-/etc/ssl/certs/ca-certificates.crt}" \
		--version "$version" --commit "$commit" --date "$date" --out "../../dist/ayoayo_${version#v}_image.oci.tar")
else
	echo "--- no image: it needs both linux/amd64 and linux/arm64 in TARGETS"
fi
shopt -s nullglob
(cd dist && files=(*.tar.gz *.zip *.sbom.json *.oci.tar) && sha256sum -- "${files[@]}" >"ayoayo_${version#v}_checksums.txt")
echo "$version" >dist/VERSION
ls -l dist
