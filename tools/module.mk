# tools/module.mk - bootable media (make usb, make iso), optionally signed for Secure Boot.
#
#   make usb [CFG=my.cfg] [SIGN_KEY=k.key SIGN_CERT=k.crt]   $(B)/pmuboot-usb.img
#   make iso [CFG=my.cfg] [SIGN_KEY=k.key SIGN_CERT=k.crt]   $(B)/pmuboot.iso
#
# CFG is the pmuboot.cfg put beside the image (default: every option commented out).
# With SIGN_KEY and SIGN_CERT the media carry $(B)/pmuboot-signed.efi (tools/sign.sh).

CFG ?= tools/pmuboot.cfg.default
SIGN_KEY ?=
SIGN_CERT ?=
MEDIA_EFI := $(if $(SIGN_KEY),$(B)/pmuboot-signed.efi,$(B)/pmuboot.efi)
MEDIA_TOOLS := tools/mkusb.sh tools/mkiso.sh tools/sign.sh

usb:
	@tools/deps.sh --quiet
	@$(MAKE) --no-print-directory $(B)/pmuboot-usb.img
iso:
	@tools/deps.sh --quiet
	@$(MAKE) --no-print-directory $(B)/pmuboot.iso

$(B)/pmuboot-usb.img: $(MEDIA_EFI) $(CFG) $(MEDIA_TOOLS)
	@tools/mkusb.sh --efi $(MEDIA_EFI) --cfg $(CFG) --out $@

$(B)/pmuboot.iso: $(MEDIA_EFI) $(CFG) $(MEDIA_TOOLS)
	@tools/mkiso.sh --efi $(MEDIA_EFI) --cfg $(CFG) --out $@

$(B)/pmuboot-signed.efi: $(B)/pmuboot.efi $(SIGN_KEY) $(SIGN_CERT) tools/sign.sh
	@$(if $(SIGN_CERT),,echo "make: SIGN_KEY needs SIGN_CERT too" >&2; exit 1)
	@tools/sign.sh sign $(SIGN_KEY) $(SIGN_CERT) $< $@
