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
}

# fill_esp FAT-IMAGE-SPEC [EXTRA-DIR...]: EFI/BOOT/BOOTX64.EFI and EFI/BOOT/pmuboot.cfg into an
# mtools image (FILE or FILE@@OFFSET), plus any extra directories.
fill_esp() {
	fs=$1
	shift
	mmd -i "$fs" ::/EFI ::/EFI/BOOT "$@"
	mcopy -i "$fs" "$efi" ::/EFI/BOOT/BOOTX64.EFI
	mcopy -i "$fs" "$cfg" ::/EFI/BOOT/pmuboot.cfg
}
