# tools/media_common.sh - shared by tools/mkusb.sh and tools/mkiso.sh (sourced, not run).

# check_inputs NAME TOOL...: the tools exist, and $efi and $cfg are files; exits with a message otherwise.
check_inputs() {
	name=$1
	shift
	# sgdisk and mkfs.fat live in /usr/sbin, which an ordinary user's PATH may lack.
	PATH=$PATH:/usr/sbin:/sbin
	export MTOOLS_SKIP_CHECK=1
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || { echo "$name: $tool is missing: run tools/deps.sh" >&2; exit 1; }
	done
	[ -f "$efi" ] || { echo "$name: $efi does not exist (run make first)" >&2; exit 1; }
	[ -f "$cfg" ] || { echo "$name: config file $cfg does not exist" >&2; exit 1; }
	SOURCE_DATE_EPOCH=$(media_date)
	export SOURCE_DATE_EPOCH
}

# media_date: the date every file and folder on the medium gets, in seconds since 1970: the
# last commit's when this is a git checkout (the same commit gives the same dates), else now.
# The Makefile exports SOURCE_DATE_EPOCH=0 for the image's PE header; mtools and xorriso
# take their dates from it too, and a FAT cannot hold 1970 (its dates start in 1980;
# mtools writes 2098), so the media tools set it to this date instead.  The .efi copied
# onto the medium keeps its bytes: only the file systems' dates change.
media_date() {
	root=$(cd "$here/.." && pwd -P)
	top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || top=""
	when=""
	# Only this tree's own history: a tarball unpacked inside another repository is not a commit.
	[ "$top" = "$root" ] && when=$(git -C "$root" log -1 --format=%ct 2>/dev/null)
	case "$when" in
	'' | *[!0-9]*) date +%s ;;
	*) echo "$when" ;;
	esac
}

# fill_esp FAT-IMAGE-SPEC [EXTRA-DIR...]: EFI/BOOT/BOOTX64.EFI and EFI/BOOT/pmuboot.cfg into an
# mtools image (FILE or FILE@@OFFSET), plus any extra directories.
fill_esp() {
	fs=$1
	shift
	mmd -i "$fs" ::/EFI ::/EFI/BOOT "$@"
	mcopy -i "$fs" "$efi" ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i "$fs" "$cfg" ::/EFI/BOOT/pmuboot.cfg
	fill_kernels "$fs"
	fill_instr_pack "$fs"
}

# check_kernels NAME: $kernels (empty: none) is a directory holding kernel files; exits otherwise.
check_kernels() {
	[ -z "${kernels:-}" ] && return 0
	[ -d "$kernels" ] || { echo "$1: --kernels $kernels is not a directory" >&2; exit 1; }
	ls "$kernels"/*.pmuk >/dev/null 2>&1 ||
		{ echo "$1: $kernels holds no kernel files (*.pmuk, from pmuboot-host kernel build)" >&2; exit 1; }
}

# fill_kernels FAT-IMAGE-SPEC: the user kernel files of $kernels into /pmuboot/kernels (docs/kernels.md).
fill_kernels() {
	[ -z "${kernels:-}" ] && return 0
	mmd -i "$1" ::/pmuboot 2>/dev/null || true
	mmd -i "$1" ::/pmuboot/kernels
	for k in "$kernels"/*.pmuk; do
		mcopy -i "$1" "$k" ::/pmuboot/kernels/
	done
}

# check_instr_pack NAME: $instr_pack (empty: none) is a kernel pack (PMUI magic, from pmuboot-host instr
# pack); exits otherwise.  The image checks its length and CRC itself and refuses a damaged one by name.
check_instr_pack() {
	[ -z "${instr_pack:-}" ] && return 0
	[ -f "$instr_pack" ] || { echo "$1: --instr-pack $instr_pack is not a file" >&2; exit 1; }
	[ "$(head -c 4 "$instr_pack")" = PMUI ] ||
		{ echo "$1: $instr_pack is not a kernel pack (pmuboot-host instr pack -o FILE makes one)" >&2; exit 1; }
}

# instr_pack_kib: the pack's size in KiB, rounded up (0 without one).
instr_pack_kib() {
	[ -z "${instr_pack:-}" ] && { echo 0; return; }
	echo $((($(wc -c < "$instr_pack") + 1023) / 1024))
}

# fill_instr_pack FAT-IMAGE-SPEC: the kernel pack as /pmuboot/instr.pack (docs/instr.md, "In the image").
fill_instr_pack() {
	[ -z "${instr_pack:-}" ] && return 0
	mmd -i "$1" ::/pmuboot 2>/dev/null || true
	mcopy -i "$1" "$instr_pack" ::/pmuboot/instr.pack
}
