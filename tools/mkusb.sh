#!/bin/sh
# tools/mkusb.sh - build a raw USB disk image holding pmuboot, ready for dd or any raw writer.
#
#   tools/mkusb.sh [--efi build/pmuboot.efi] [--cfg FILE] [--kernels DIR] [--instr-pack FILE]
#                  [--out build/pmuboot-usb.img] [--size MiB]
#
# The image has a GPT with one FAT32 EFI System Partition (type EF00) at 1 MiB, holding
#   EFI/BOOT/BOOTX64.EFI   the image (the removable-media path every UEFI firmware boots)
#   EFI/BOOT/pmuboot.cfg   the options (default: tools/pmuboot.cfg.default, every option commented out)
#   pmuboot/               where each run saves results-NNNN.jsonl
#   pmuboot/instr.pack     with --instr-pack: the kernel pack instr= measures from (docs/instr.md)
# --size defaults to 64 MiB, more when the pack needs it (the pack and 48 MiB).
# Built on an image file with sgdisk, mkfs.fat --offset and mtools: no root, no loop mounts.
set -eu

here=$(dirname "$0")
efi=build/pmuboot.efi
cfg=$here/pmuboot.cfg.default
kernels=
instr_pack=
out=build/pmuboot-usb.img
size_mib=

while [ $# -gt 0 ]; do
	case "$1" in
	--efi) efi=$2; shift 2 ;;
	--cfg) cfg=$2; shift 2 ;;
	--kernels) kernels=$2; shift 2 ;;
	--instr-pack) instr_pack=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--size) size_mib=$2; shift 2 ;;
	*) echo "mkusb: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 1 ;;
	esac
done

. "$here/media_common.sh"
check_inputs mkusb sgdisk mkfs.fat mmd mcopy
check_kernels mkusb
check_instr_pack mkusb
if [ -z "$size_mib" ]; then
	size_mib=$((48 + ($(instr_pack_kib) + 1023) / 1024))
	[ "$size_mib" -ge 64 ] || size_mib=64
fi
# FAT32 needs at least 65525 clusters: 33 MiB of 512-byte clusters, plus the GPT.
[ "$size_mib" -ge 40 ] 2>/dev/null || { echo "mkusb: --size must be at least 40 (MiB)" >&2; exit 1; }

sector=512
part_start=2048                                 # 1 MiB, the alignment every partitioning tool uses
part_mib=$((size_mib - 2))                      # leaves room for the backup GPT at the end
part_sectors=$((part_mib * 1024 * 1024 / sector))
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT

mkdir -p "$(dirname "$out")"
rm -f "$tmp"
truncate -s "${size_mib}M" "$tmp"
log=$(sgdisk --clear --new=1:$part_start:+${part_mib}M --typecode=1:EF00 --change-name=1:"EFI System" \
	"$tmp" 2>&1) || { echo "$log" >&2; echo "mkusb: sgdisk failed" >&2; exit 1; }
# -h: the partition's first sector, as the boot sector's hidden-sector count must say.
log=$(mkfs.fat -F 32 -n PMUBOOT -h $part_start --offset $part_start "$tmp" $((part_sectors * sector / 1024)) 2>&1) ||
	{ echo "$log" >&2; echo "mkusb: mkfs.fat failed" >&2; exit 1; }

fs="$tmp@@$((part_start * sector))"
fill_esp "$fs" ::/pmuboot
mv "$tmp" "$out"
trap - EXIT
echo "$out: ${size_mib} MiB disk image (GPT, FAT32 EFI System Partition) with $efi and $(basename "$cfg") as pmuboot.cfg"
