# tools/module.mk - bootable media (make usb, make iso), optionally signed for Secure Boot, and a
# network boot root (make netboot).
#
#   make usb [CFG=my.cfg] [SIGN_KEY=k.key SIGN_CERT=k.crt]   $(B)/pmuboot-usb.img
#   make iso [CFG=my.cfg] [SIGN_KEY=k.key SIGN_CERT=k.crt]   $(B)/pmuboot.iso
#   make netboot [CFG=my.cfg] [SIGN_KEY=... SIGN_CERT=...]   $(B)/netboot/ (BOOTX64.EFI, pmuboot.cfg, README.txt)
#
# CFG is the pmuboot.cfg put beside the image (default: every option commented out).
# KERNELS=dir puts dir's user kernel files (*.pmuk) in \pmuboot\kernels\ (docs/kernels.md).
# Every medium carries the kernel pack of instruction forms, $(B)/instr.pack (`pmuboot-host instr pack`
# over the whole catalogue, about 36 MiB; instr= measures from it: docs/instr.md, "In the image"), made
# only for the media so the default build stays fast; INSTR_PACK= (empty) leaves it out, INSTR_PACK=FILE
# puts another there.
# With SIGN_KEY and SIGN_CERT the media carry $(B)/pmuboot-signed.efi (tools/sign.sh).
# Each target prints the path of its medium, made or already up to date.

CFG ?= tools/pmuboot.cfg.default
SIGN_KEY ?=
SIGN_CERT ?=
KERNELS ?=
MEDIA_KERNELS := $(if $(KERNELS),--kernels $(KERNELS))
INSTR_PACK ?= $(B)/instr.pack
MEDIA_PACK := $(if $(INSTR_PACK),--instr-pack $(INSTR_PACK))
MEDIA_SIGNED := $(if $(SIGN_KEY)$(SIGN_CERT),yes)
MEDIA_EFI := $(if $(MEDIA_SIGNED),$(B)/pmuboot-signed.efi,$(B)/pmuboot.efi)
MEDIA_TOOLS := tools/mkusb.sh tools/mkiso.sh tools/mknetboot.sh tools/media_common.sh tools/sign.sh
MEDIA_INPUTS := $(B)/media-inputs.txt

# media_make PATH: make the medium in a sub-make (after deps.sh has installed the tools
# its rule uses) and name it; a file whose inode and time did not change was up to date.
media_make = before=$$(stat -c '%i %y' $(1) 2>/dev/null); \
	$(MAKE) --no-print-directory $(1) && \
	if [ "$$before" = "$$(stat -c '%i %y' $(1))" ]; then echo "$(1) is up to date"; fi

comma := ,

usb:
	@tools/deps.sh --quiet --for usb$(if $(MEDIA_SIGNED),$(comma)sign)
	@$(call media_make,$(B)/pmuboot-usb.img)
iso:
	@tools/deps.sh --quiet --for iso$(if $(MEDIA_SIGNED),$(comma)sign)
	@$(call media_make,$(B)/pmuboot.iso)
# A directory, so its stamp is the image it holds: per-machine .cfg files a lab adds there stay.
netboot:
	@tools/deps.sh --quiet --for netboot$(if $(MEDIA_SIGNED),$(comma)sign)
	@$(call media_make,$(B)/netboot/BOOTX64.EFI)

# What file times cannot tell: which CFG goes on the medium (a my.cfg older than the
# image is still another file) and whether the image is signed, and with which
# certificate (a certificate belongs to exactly one key).  Rewritten only when it
# differs, so the media depend on it as on a source.
$(MEDIA_INPUTS): FORCE
	@mkdir -p $(@D)
	@[ -f '$(CFG)' ] || { echo "make: CFG=$(CFG) is not a file" >&2; exit 1; }
	@$(if $(MEDIA_SIGNED),$(if $(SIGN_KEY),,echo "make: SIGN_CERT needs SIGN_KEY too" >&2; exit 1))
	@$(if $(MEDIA_SIGNED),$(if $(SIGN_CERT),,echo "make: SIGN_KEY needs SIGN_CERT too" >&2; exit 1))
	@{ echo 'cfg $(CFG)'; echo "cfg-sha256 $$(sha256sum '$(CFG)' | cut -d' ' -f1)"; \
	  $(if $(MEDIA_SIGNED),echo 'signed key=$(SIGN_KEY) cert=$(SIGN_CERT)'; \
	  echo "cert-sha256 $$(sha256sum '$(SIGN_CERT)' 2>/dev/null | cut -d' ' -f1)",echo unsigned); \
	  $(if $(KERNELS),echo 'kernels $(KERNELS)'; (cd '$(KERNELS)' && sha256sum *.pmuk 2>/dev/null);) \
	} > $@.tmp.$$$$ && { cmp -s $@.tmp.$$$$ $@ && rm -f $@.tmp.$$$$ || mv $@.tmp.$$$$ $@; }

$(B)/pmuboot-usb.img: $(MEDIA_EFI) $(MEDIA_INPUTS) $(MEDIA_TOOLS) $(INSTR_PACK)
	@tools/mkusb.sh --efi $(MEDIA_EFI) --cfg $(CFG) $(MEDIA_KERNELS) $(MEDIA_PACK) --out $@

$(B)/netboot/BOOTX64.EFI: $(MEDIA_EFI) $(MEDIA_INPUTS) $(MEDIA_TOOLS) $(INSTR_PACK)
	@tools/mknetboot.sh --efi $(MEDIA_EFI) --cfg $(CFG) $(MEDIA_PACK) --out $(B)/netboot

$(B)/pmuboot.iso: $(MEDIA_EFI) $(MEDIA_INPUTS) $(MEDIA_TOOLS) $(INSTR_PACK)
	@tools/mkiso.sh --efi $(MEDIA_EFI) --cfg $(CFG) $(MEDIA_KERNELS) $(MEDIA_PACK) --out $@

# The kernel pack: every form of the catalogue not excluded, assembled by GNU as (binutils).  Named only
# by the media rules above, so `make` alone never builds it.
$(B)/instr.pack: $(B)/pmuboot-host instr/forms.tsv.gz
	@$(if $(Q),echo '  PACK   $@')
	$(Q)$< instr pack -o $@.tmp && mv $@.tmp $@

# Key and certificate are checked by the media-inputs rule and by sign.sh.
$(B)/pmuboot-signed.efi: $(B)/pmuboot.efi $(MEDIA_INPUTS) tools/sign.sh
	@tools/sign.sh sign $(SIGN_KEY) $(SIGN_CERT) $< $@
