#!/bin/sh
# tools/deps.sh - install the Debian packages pmuboot needs, when missing.
#
# Run as root it installs them with apt-get; otherwise it prints the exact
# command to run.  `make run` and `make test` call it first, so README's two
# commands are the whole set-up on a fresh Debian machine.
#   --quiet   print nothing when everything is present
set -eu

quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1

# package : a file or command that shows it is installed (a glob: any match will do)
checks="
gcc:/usr/bin/gcc
make:/usr/bin/make
binutils:/usr/bin/objcopy
gnu-efi:/usr/lib/crt0-efi-x86_64.o
nasm:/usr/bin/nasm
qemu-system-x86:/usr/bin/qemu-system-x86_64
ovmf:/usr/share/OVMF/OVMF_CODE_4M.fd
mtools:/usr/bin/mcopy
dosfstools:/usr/sbin/mkfs.fat
gdisk:/usr/sbin/sgdisk
xorriso:/usr/bin/xorriso
libcmocka-dev:/usr/include/cmocka.h
python3:/usr/bin/python3
sbsigntool:/usr/bin/sbsign
openssl:/usr/bin/openssl
clang:/usr/bin/clang
libclang-rt-dev:/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a
"

missing=""
for c in $checks; do
	pkg=${c%%:*}
	path=${c#*:}
	# shellcheck disable=SC2086 # the path is a glob on purpose
	set -- $path
	[ -e "$1" ] || missing="$missing $pkg"
done

if [ -z "$missing" ]; then
	[ $quiet -eq 1 ] || echo "deps: everything is installed"
	exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root:  $cmd" >&2
	exit 1
fi
echo "deps: installing$missing"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
