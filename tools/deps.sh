#!/bin/sh
# tools/deps.sh - install the Debian packages a make target needs, when missing.
#
#   tools/deps.sh [--for TARGET[,TARGET...]] [--list] [--quiet]
#
#   --for T   only what target T needs (usb, iso, run, test, serve, ...; see the table below);
#             without it, every package in the table
#   --list    print each needed package and whether it is installed; install nothing
#   --quiet   print nothing when everything is present
#
# Run as root it installs what is missing with apt-get; otherwise it prints the exact
# command to run.  Each make target calls it with its own --for, so `make usb` never asks
# for QEMU or OVMF, and `make run` / `make test` on a fresh Debian install all they use.
set -eu

# One line per package: the package, a file (or glob) that shows it is installed, and the targets
# that need it.  To add a package, add a line; a target named here for the first time
# becomes a valid --for value.  `test` needs every package: the tests build and boot it all.
# `serve` is `pmucap serve`, the collector (Flask on waitress, psycopg2 for --db postgresql://,
# matplotlib for the plots); the tests also start a PostgreSQL of their own and drive Chromium.
table="
gcc                  /usr/bin/gcc                        image host unit run usb iso netboot bench test
make                 /usr/bin/make                       image host unit run usb iso netboot bench test
binutils             /usr/bin/objcopy                    image host unit run usb iso netboot bench test
nasm                 /usr/bin/nasm                       image host unit run usb iso netboot bench test
gnu-efi              /usr/lib/crt0-efi-x86_64.o          image run usb iso netboot test
libcmocka-dev        /usr/include/cmocka.h               unit test
python3              /usr/bin/python3                    run bench test
qemu-system-x86      /usr/bin/qemu-system-x86_64         run test
qemu-user            /usr/bin/qemu-x86_64                test
ovmf                 /usr/share/OVMF/OVMF_CODE_4M.fd     run test
mtools               /usr/bin/mcopy                      run usb iso test
dosfstools           /usr/sbin/mkfs.fat                  run usb iso test
gdisk                /usr/sbin/sgdisk                    run usb test
xorriso              /usr/bin/xorriso                    iso test
sbsigntool           /usr/bin/sbsign                     sign test
openssl              /usr/bin/openssl                    sign test
python3-matplotlib   /usr/lib/python3/dist-packages/matplotlib  plot serve test
python3-flask        /usr/lib/python3/dist-packages/flask       serve test
python3-waitress     /usr/lib/python3/dist-packages/waitress    serve test
python3-psycopg2     /usr/lib/python3/dist-packages/psycopg2    serve test
postgresql           /usr/lib/postgresql/*/bin/initdb           test
chromium             /usr/bin/chromium                          test
chromium-driver      /usr/bin/chromedriver                      test
clang                /usr/bin/clang                      fuzz test
libclang-rt-dev      /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a  fuzz test
"

die() { echo "deps: $*" >&2; exit 1; }

quiet=0
list=0
want=""
while [ $# -gt 0 ]; do
	case "$1" in
	--quiet) quiet=1; shift ;;
	--list) list=1; shift ;;
	--for) [ $# -ge 2 ] || die "--for needs a target"; want="$want $(echo "$2" | tr ',' ' ')"; shift 2 ;;
	--for=*) want="$want $(echo "${1#--for=}" | tr ',' ' ')"; shift ;;
	*) die "unknown argument '$1' (usage: $0 [--for TARGET[,TARGET...]] [--list] [--quiet])" ;;
	esac
done

# Every target the table names; a --for outside them is a typo, not "needs nothing".
known=$(echo "$table" | awk 'NF { for (i = 3; i <= NF; i++) print $i }' | sort -u | tr '\n' ' ' | sed 's/ $//')
for t in $want; do
	case " $known " in
	*" $t "*) ;;
	*) die "unknown target '$t' for --for (known: $known)" ;;
	esac
done

# needs TARGETS-OF-A-LINE: true when the line serves a requested target (or none was requested).
needs() {
	[ -z "$want" ] && return 0
	for t in "$@"; do
			case " $want " in *" $t "*) return 0 ;; esac
	done
	return 1
}

missing=""
while read -r pkg path targets; do
	[ -n "$pkg" ] || continue
	# shellcheck disable=SC2086  # the targets are words
	needs $targets || continue
	# A path may be a glob (a versioned directory): any match will do.
	# shellcheck disable=SC2086  # expanded on purpose
	set -- $path
	if [ -e "$1" ]; then state=installed; else state=missing; missing="$missing $pkg"; fi
	[ $list -eq 0 ] || printf '%-20s %s\n' "$pkg" "$state"
done <<EOF
$table
EOF
[ $list -eq 0 ] || exit 0

for_what=${want:+ for$want}
if [ -z "$missing" ]; then
	[ $quiet -eq 1 ] || echo "deps: everything$for_what is installed"
	exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages$for_what:$missing" >&2
	echo "deps: run as root:  $cmd" >&2
	exit 1
fi
echo "deps: installing$missing"
apt-get update -qq
# shellcheck disable=SC2086  # one word per package
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
