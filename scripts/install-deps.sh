#!/usr/bin/env bash
# Installs the Debian packages blendsync needs, if any are missing.
# As root it runs apt-get; otherwise it prints the exact command to run and exits 1.
set -euo pipefail

packages=(
  cmake make gcc clang gcc-multilib    # build; clang and -m32 for the determinism test
  g++ pkg-config                       # headers_standalone (C++17) and install_consumer (pkg-config)
  qemu-user                            # runs the -m32 build where the kernel cannot (qemu-i386)
  libfixmath-dev libcjson-dev libcmocka-dev
  libenet-dev                          # the lockstep server and client (ENet 1.3)
  libstb-dev                           # blendsync plot writes PNGs with stb_image_write
  python3                              # CLI tests read JSON and GLB files back (cli_present.sh, ...)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "blendsync needs these Debian packages: ${missing[*]}" >&2
  echo "run as root:  apt-get update && $cmd" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
