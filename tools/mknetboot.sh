#!/bin/sh
# tools/mknetboot.sh - lay out a network boot root for pmuboot: one directory to serve over TFTP and HTTP.
#
#   tools/mknetboot.sh [--efi build/pmuboot.efi] [--cfg FILE] [--instr-pack FILE] [--out build/netboot]
#
# The directory holds
#   BOOTX64.EFI   the image (the DHCP answer's boot file)
#   pmuboot.cfg   the options every machine gets (default: tools/pmuboot.cfg.default, all commented out)
#   README.txt    how to serve it: dnsmasq, ISC DHCP / Kea, UEFI HTTP boot, and the per-machine files
#   instr.pack    with --instr-pack: the kernel pack instr= measures from (docs/instr.md, "In the image")
# A machine loaded from it asks the same server, in the same directory, for pmuboot-<SMBIOS UUID>.cfg,
# then pmuboot-<MAC>.cfg, then pmuboot.cfg, and uses the first there (docs/lab.md, "Network boot").
# The directory is replaced as a whole (files a lab added, such as per-machine .cfg files, are kept
# when --out already holds them: only the three files above are rewritten).
set -eu

here=$(dirname "$0")
efi=build/pmuboot.efi
cfg=$here/pmuboot.cfg.default
out=build/netboot
instr_pack=

while [ $# -gt 0 ]; do
	case "$1" in
	--efi) efi=$2; shift 2 ;;
	--cfg) cfg=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--instr-pack) instr_pack=$2; shift 2 ;;
	*) echo "mknetboot: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 1 ;;
	esac
done

[ -f "$efi" ] || { echo "mknetboot: $efi does not exist (run make first)" >&2; exit 1; }
[ -f "$cfg" ] || { echo "mknetboot: config file $cfg does not exist" >&2; exit 1; }
. "$here/media_common.sh"
check_instr_pack mknetboot
[ ! -e "$out" ] || [ -d "$out" ] || { echo "mknetboot: $out exists and is not a directory" >&2; exit 1; }

mkdir -p "$out"
# Written beside, then renamed: a server reading the directory meanwhile sees the old file or the new.
cp "$efi" "$out/.BOOTX64.EFI.tmp" && mv "$out/.BOOTX64.EFI.tmp" "$out/BOOTX64.EFI"
cp "$cfg" "$out/.pmuboot.cfg.tmp" && mv "$out/.pmuboot.cfg.tmp" "$out/pmuboot.cfg"
[ -z "$instr_pack" ] || { cp "$instr_pack" "$out/.instr.pack.tmp" && mv "$out/.instr.pack.tmp" "$out/instr.pack"; }
cat > "$out/.README.txt.tmp" <<'EOF'
pmuboot network boot root
=========================

Serve this directory over TFTP (PXE) or HTTP (UEFI HTTP boot), as it is. docs/lab.md in the
pmuboot tree says more; this is the short form. SERVER is the address of the machine serving it,
the subnet and range are examples.

Files
-----
  BOOTX64.EFI                 the image: the boot file the DHCP answer names
  pmuboot.cfg                 options for every machine
  instr.pack                  (when made with one) the kernel pack instr= measures instruction forms from
  pmuboot-<UUID>.cfg          options for one machine, by its SMBIOS system UUID, lower-case hex
                              with dashes: pmuboot-4c4c4544-0042-3510-8056-b8c04f4e3532.cfg
  pmuboot-<MAC>.cfg           options for one network interface, twelve lower-case hex digits:
                              pmuboot-525400123456.cfg
A machine asks for pmuboot-<UUID>.cfg, then pmuboot-<MAC>.cfg, then pmuboot.cfg, in the directory
its boot file came from, and uses the first that exists; its `begin` record names the file used
and what each request got. A machine's UUID and MAC are in the `platform` record of any run.
TFTP names are case-sensitive: use exactly these spellings.

dnsmasq (PXE over TFTP, and UEFI HTTP boot)
-------------------------------------------
  enable-tftp
  tftp-root=/srv/pmuboot                 # this directory
  dhcp-range=192.168.50.100,192.168.50.199,12h
  # or, beside an existing DHCP server:  dhcp-range=192.168.50.0,proxy  plus
  #   pxe-service=tag:efi64,x86-64_EFI,pmuboot,BOOTX64.EFI
  dhcp-match=set:efi64,option:client-arch,7      # x64 UEFI PXE
  dhcp-match=set:efi64,option:client-arch,9      # x64 UEFI PXE as older firmware says it
  dhcp-boot=tag:efi64,BOOTX64.EFI
  # UEFI HTTP boot: the firmware must get "HTTPClient" back in option 60.
  dhcp-match=set:efihttp,option:client-arch,16
  dhcp-option-force=tag:efihttp,60,HTTPClient
  dhcp-boot=tag:efihttp,http://SERVER/pmuboot/BOOTX64.EFI

ISC DHCP (dhcpd.conf) or Kea
----------------------------
  option arch code 93 = unsigned integer 16;
  subnet 192.168.50.0 netmask 255.255.255.0 {
    range 192.168.50.100 192.168.50.199;
    if option arch = 00:07 or option arch = 00:09 {
      next-server SERVER;
      filename "BOOTX64.EFI";
    } elsif option arch = 00:10 {
      option vendor-class-identifier "HTTPClient";
      filename "http://SERVER/pmuboot/BOOTX64.EFI";
    }
  }
ISC DHCP is no longer developed; Kea is its maintained successor: match the same client
architecture (option 93) in a client class and set next-server and boot-file-name, or for
HTTP boot option 60 "HTTPClient" and a boot-file-name URL.

UEFI HTTP boot without a DHCP option
------------------------------------
Set the boot URL http://SERVER/pmuboot/BOOTX64.EFI in the firmware's HTTP Boot setup page, or
through the BMC (Redfish Boot.HttpBootUri with BootSourceOverrideTarget UefiHttp). Serve this
directory under /pmuboot/ with any web server, e.g.
  cd /srv && python3 -m http.server 80

Uploading the results
---------------------
Put  upload=http://COLLECTOR:PORT/api/runs  (and upload_token=...) in pmuboot.cfg: every run POSTs
its records there at the end. Without it the records are on the serial console only: a network
boot has no disk to save them on.
EOF
mv "$out/.README.txt.tmp" "$out/README.txt"
echo "$out: network boot root with $efi as BOOTX64.EFI, $(basename "$cfg") as pmuboot.cfg, README.txt"
