#!/bin/sh
# tools/sign.sh - sign pmuboot for Secure Boot with your own key (sbsign, Debian's sbsigntool).
#
#   tools/sign.sh new-key DIR                      create DIR/pmuboot-db.{key,crt,cer}
#   tools/sign.sh sign KEY CERT [IN [OUT]]         sign IN (build/pmuboot.efi) into OUT
#                                                  (build/pmuboot-signed.efi) and verify it
#
# The key is yours: keep DIR/pmuboot-db.key private.  Enroll DIR/pmuboot-db.cer (DER) in
# the firmware's db through its setup screens, KeyTool, or as a shim Machine Owner Key
# with `mokutil --import DIR/pmuboot-db.cer`; README.md, "Secure Boot", walks through it.
# `make usb SIGN_KEY=... SIGN_CERT=...` puts the signed image on the stick.
set -eu

die() { echo "sign: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing (Debian package $2): run tools/deps.sh"; }

cmd=${1:-}
case "$cmd" in
new-key)
	[ $# -eq 2 ] || die "usage: $0 new-key DIR"
	need openssl openssl
	dir=$2
	mkdir -p "$dir"
	[ -e "$dir/pmuboot-db.key" ] && die "$dir/pmuboot-db.key exists; not overwriting a key"
	# RSA-2048 and SHA-256: what UEFI 2.10 §32.5 requires every db verifier to support.
	openssl req -new -x509 -newkey rsa:2048 -sha256 -nodes -days 3650 \
		-subj "/CN=pmuboot lab signing key/" \
		-keyout "$dir/pmuboot-db.key" -out "$dir/pmuboot-db.crt" 2>/dev/null ||
		die "openssl could not create the key"
	chmod 600 "$dir/pmuboot-db.key"
	openssl x509 -in "$dir/pmuboot-db.crt" -outform DER -out "$dir/pmuboot-db.cer"
	echo "sign: created $dir/pmuboot-db.key (private: keep it safe), $dir/pmuboot-db.crt (PEM, for sbsign)"
	echo "sign: and $dir/pmuboot-db.cer (DER): enroll this one in the firmware's db or with mokutil --import"
	;;
sign)
	[ $# -ge 3 ] && [ $# -le 5 ] || die "usage: $0 sign KEY CERT [IN [OUT]]"
	need sbsign sbsigntool
	need sbverify sbsigntool
	key=$2 cert=$3 in=${4:-build/pmuboot.efi} out=${5:-build/pmuboot-signed.efi}
	[ -f "$key" ] || die "key $key does not exist (tools/sign.sh new-key DIR makes one)"
	[ -f "$cert" ] || die "certificate $cert does not exist"
	[ -f "$in" ] || die "$in does not exist (run make first)"
	# A layout problem would make firmware reject the signature: refuse to sign such an image.
	layout=$(sbverify --list "$in" 2>&1) || true
	if echo "$layout" | grep -qi "warning\|error\|gaps"; then
		echo "$layout" >&2
		die "$in has a section layout sbverify complains about; not signing it"
	fi
	tmp=$out.tmp.$$
	sbsign --key "$key" --cert "$cert" --output "$tmp" "$in" 2>/dev/null || { rm -f "$tmp"; die "sbsign failed"; }
	sbverify --cert "$cert" "$tmp" >/dev/null 2>&1 || { rm -f "$tmp"; die "the signed image does not verify"; }
	mv "$tmp" "$out"
	echo "sign: $out signed with $cert and verified"
	;;
*)
	die "usage: $0 new-key DIR | sign KEY CERT [IN [OUT]]"
	;;
esac
