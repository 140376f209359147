#!/usr/bin/env bash
# Extension modules built on the GPU machine, reused by later calls.
#
#   bash tools/prebuilt.sh hash            hash of what the build depends on
#   bash tools/prebuilt.sh pack OUT.tgz    (GPU machine, after a build) the
#                                          stripped *.so + SOURCES into OUT.tgz
#   bash tools/prebuilt.sh unpack IN.tgz   (here) into .prebuilt/ (git-ignored),
#                                          then carry ".prebuilt" with the call
#
# tools/gpu_check.sh uses .prebuilt/ only when its SOURCES equals the hash of
# the tree it runs on (any change to a .pyx/.pxd/.pxi/.h of gpuscipy_core or
# to setup.py rebuilds).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
case "${1:-}" in
  hash)
    { { find gpuscipy_core \( -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' -o -name '*.h' \) \
          -not -path '*/include/*'; echo setup.py; } | LC_ALL=C sort | xargs sha256sum
      python3 -c 'import sys; print(sys.version_info[:2])'; } | sha256sum | cut -d' ' -f1 ;;
  pack)
    tmp="$(mktemp -d)"
    find gpuscipy_core -name '*.so' -exec cp --parents {} "$tmp" \;
    find "$tmp" -name '*.so' -exec strip --strip-unneeded {} \; 2>/dev/null || true
    bash "$0" hash > "$tmp/SOURCES"
    tar -czf "$2" -C "$tmp" .
    rm -rf "$tmp" ;;
  unpack)
    rm -rf .prebuilt && mkdir -p .prebuilt
    tar -xzf "$2" -C .prebuilt
    echo ".prebuilt/: $(find .prebuilt -name '*.so' | wc -l) modules, SOURCES $(cat .prebuilt/SOURCES)" ;;
  *)
    echo "usage: $0 hash | pack OUT.tgz | unpack IN.tgz" >&2; exit 2 ;;
esac
