#!/bin/sh
# tools/mkiso.sh - build a bootable ISO 9660 image of pmuboot, for BMC virtual media and optical drives.
#
#   tools/mkiso.sh [--efi build/pmuboot.efi] [--cfg FILE] [--kernels DIR] [--instr-pack FILE] [--out build/pmuboot.iso]
#
# UEFI firmware boots a CD through its El Torito catalogue: the EFI boot entry (platform
# 0xEF) points at a small FAT image holding EFI/BOOT/BOOTX64.EFI and pmuboot.cfg.  The
# same FAT image is also appended as a GPT EFI System Partition, so virtual media that
# present the ISO as a disk (some BMCs) and an ISO written to a stick boot too.  The ISO
# file tree carries copies of both files so a person can read them.  A CD is read-only:
# the run reports that its records are not saved there (the serial capture has them).
set -eu

here=$(dirname "$0")
efi=build/pmuboot.efi
cfg=$here/pmuboot.cfg.default
kernels=
instr_pack=
out=build/pmuboot.iso

while [ $# -gt 0 ]; do
	case "$1" in
	--efi) efi=$2; shift 2 ;;
	--cfg) cfg=$2; shift 2 ;;
	--kernels) kernels=$2; shift 2 ;;
	--instr-pack) instr_pack=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "mkiso: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 1 ;;
	esac
done

. "$here/media_common.sh"
check_inputs mkiso xorriso mkfs.fat mmd mcopy
check_kernels mkiso
check_instr_pack mkiso

work=$(mktemp -d "${TMPDIR:-/tmp}/pmuboot-iso.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The El Torito image: FAT12, 2880 KiB (the largest floppy geometry, which every
# firmware's El Torito code accepts), room for a 256 KiB image many times over.
# With a kernel pack (the image reads \pmuboot\instr.pack from the volume it was loaded from: this one)
# the FAT grows by the pack's size and 1 MiB; a no-emulation boot image need not be a floppy's size.
fat=$work/efiboot.img
fat_kib=2880
[ -z "$instr_pack" ] || fat_kib=$((fat_kib + $(instr_pack_kib) + 1024))
log=$(mkfs.fat -C -n PMUBOOT "$fat" $fat_kib 2>&1) || { echo "$log" >&2; echo "mkiso: mkfs.fat failed" >&2; exit 1; }
fill_esp "$fat"

tree=$work/tree
mkdir -p "$tree/EFI/BOOT"
cp "$efi" "$tree/EFI/BOOT/BOOTX64.EFI"
cp "$cfg" "$tree/EFI/BOOT/pmuboot.cfg"
# With SOURCE_DATE_EPOCH set, xorriso dates each file by its mtime and the volume by the epoch.
find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
log=$(xorriso -as mkisofs -o "$tmp" -V PMUBOOT -r -J \
	-append_partition 2 0xef "$fat" -appended_part_as_gpt \
	-e --interval:appended_partition_2:all:: -no-emul-boot \
	"$tree" 2>&1) || { echo "$log" >&2; rm -f "$tmp"; echo "mkiso: xorriso failed" >&2; exit 1; }
mv "$tmp" "$out"
echo "$out: ISO 9660 image with an El Torito EFI boot image ($efi, $(basename "$cfg") as pmuboot.cfg)"
