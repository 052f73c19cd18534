#!/usr/bin/env bash
# Builds the addon that the npm package ships: prebuilds/linux-<arch>/sluice.glibc.node, in
# prebuildify's layout that node-gyp-build's loader reads, with snappy, lz4, zstd and zlib linked
# from their static archives (binding.gyp's sluice_static) so that a host needs no codec package.
# Runs as `npm run build:prebuild` and before every `npm pack` (prepack).
#
# The build happens in a staging folder (.cache/prebuild) holding binding.gyp and a link to
# native/, so build/Release, which a clone's tests load, is neither rebuilt nor removed meanwhile.
# Checks what it made: no codec library among the addon's needed libraries, every codec present.
# Everything goes to stderr: `npm pack --json` prints its listing on stdout after this has run.
set -euo pipefail
exec 1>&2

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
stage="$root/.cache/prebuild"

# Debian's -dev package of each codec, by its pkg-config name.
declare -A dev_package=([zlib]=zlib1g-dev [snappy]=libsnappy-dev [liblz4]=liblz4-dev [libzstd]=libzstd-dev)
missing=()
for pc in "${!dev_package[@]}"; do
  pkg-config --exists "$pc" || missing+=("${dev_package[$pc]}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "build:prebuild: the prebuild links every codec; install them: apt-get install ${missing[*]}" >&2
  exit 1
fi

rm -rf "$stage"
mkdir -p "$stage"
cp "$root/binding.gyp" "$stage/"
ln -s "$root/native" "$stage/native"
# node-gyp takes unknown npm_config_* settings as gyp variables. Without a nodedir (.npmrc sets
# it when npm runs this) node-gyp would download Node's headers.
[[ -z "${npm_config_nodedir:-}" && -d /usr/include/node ]] && export npm_config_nodedir=/usr
npm_config_sluice_static=1 "$root/node_modules/.bin/prebuildify" --napi --strip --tag-libc --name sluice \
  --cwd "$stage" --out "$root"
rm -rf "$stage"

addon="$root/prebuilds/linux-$(node -p process.arch)/sluice.glibc.node"
needed="$(readelf -d "$addon" | grep NEEDED || true)"
if grep -qE 'lib(z|snappy|lz4|zstd)\.so' <<<"$needed"; then
  echo "build:prebuild: $addon still needs a codec library:" >&2
  echo "$needed" >&2
  exit 1
fi
node -e '
  const b = require(process.argv[1]);
  const missing = Object.entries(b.codecsAvailable).filter(([, has]) => !has).map(([codec]) => codec);
  if (missing.length > 0) throw new Error(`the prebuild lacks ${missing.join(", ")}`);
' "$addon"
echo "$addon: $(stat -c %s "$addon") bytes"
