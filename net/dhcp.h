/*
 * net/dhcp.h - options of a DHCPv4 packet, as the firmware keeps the one
 * that booted the machine (EFI_PXE_BASE_CODE_MODE.DhcpAck).
 *
 * Source: RFC 2131 §2 (the BOOTP fixed part, 236 bytes, then the options),
 * RFC 2132 §2 (the magic cookie 99.130.83.99, pad 0, end 255, code-length-
 * value options), §3.5 (3: routers), §9.5 (67: boot file name).  Outside
 * bytes: tests/fuzz/fuzz_dhcp.c.
 */
#ifndef PMUBOOT_NET_DHCP_H
#define PMUBOOT_NET_DHCP_H

#include "lib/libc.h"

#define DHCP_FIXED_LEN 236	/* op .. file: RFC 2131 figure 1 */
#define DHCP_OFF_SIADDR 20	/* next server (the TFTP server) */
#define DHCP_OFF_FILE 108	/* boot file name, 128 bytes */
#define DHCP_FILE_LEN 128
#define DHCP_OPT_ROUTER 3
#define DHCP_OPT_SERVER_ID 54
#define DHCP_OPT_BOOTFILE 67

/* Option `code` of the packet's options field: its value and length; false when absent or the packet is damaged. */
bool dhcp_option(const uint8_t *pkt, size_t len, uint8_t code, const uint8_t **val, size_t *vlen);

/* The boot file name: option 67, else the file field; "" when neither holds one. */
void dhcp_boot_file(const uint8_t *pkt, size_t len, char *out, size_t cap);

#endif
