/*
 * net/efi_status.h - a firmware status in words ("EFI_CONNECTION_REFUSED"),
 * for the records and lines that say why the network or the boot medium
 * failed.  The one table of names: boot/ passes its EFI_STATUS values
 * here.  Portable (the numbers are the specification's), so the unit
 * tests check the table.
 *
 * Source: UEFI 2.10 appendix D, "Status Codes": an error is the high bit
 * with its code below it; EFI_CONNECTION_FIN/RESET/REFUSED are the TCP
 * codes of edk2's MdePkg/Include/Protocol/Tcp4.h (EFIERR(104..106)).
 */
#ifndef PMUBOOT_NET_EFI_STATUS_H
#define PMUBOOT_NET_EFI_STATUS_H

#include "lib/libc.h"

#define EFI_STATUS_ERROR_BIT (1ull << 63)
#define EFI_STATUS_ERR(code) (EFI_STATUS_ERROR_BIT | (uint64_t)(code))

/* The status's name, "EFI_SUCCESS" for 0; "another EFI error" (or warning) for one not in the table. */
const char *efi_status_name(uint64_t status);

#endif
