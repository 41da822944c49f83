/*
 * boot/net.h - the network interface: how the image was loaded, the NIC
 * it came from, and an IPv4 address to talk from.
 *
 * net_probe() only looks (no traffic): the loaded image's device handle
 * says whether the firmware loaded us over the network.  After a PXE boot
 * it is edk2's PXE child of the NIC, .../MAC(..)/IPv4(..), holding
 * EFI_PXE_BASE_CODE_PROTOCOL, whose mode data keeps the DHCP ACK (station
 * address, boot server, boot file); after a UEFI HTTP boot its device path
 * ends in a URI node naming the boot file's URL (UEFI 2.10 ch. 24, HTTP
 * Boot; ch. 10, the messaging device path nodes); under iPXE it is the NIC itself, with iPXE's PXE base code.
 * The service bindings (TCP4, HTTP) and EFI_IP4_CONFIG2_PROTOCOL are on
 * the NIC handle, the nearest handle up that path holding them.
 *
 * net_ready() finds an address for TCP connections, the first of:
 * the NIC's default address (EFI_IP4_CONFIG2 has one: the firmware
 * configured the NIC, an HTTP boot did); the PXE station address, used
 * explicitly by each connection (nothing written to the NIC's stored
 * settings); DHCP through EFI_IP4_CONFIG2 (a disk or virtual-media boot),
 * whose policy is put back by net_release() at the end of the run.
 */
#ifndef PMUBOOT_BOOT_NET_H
#define PMUBOOT_BOOT_NET_H

#include "boot/boot.h"
#include "net/efi_status.h"
#include "net/http.h"
#include "lib/record.h"

enum net_boot { NET_BOOT_NONE, NET_BOOT_PXE, NET_BOOT_HTTP };
enum net_addr { NET_ADDR_NONE, NET_ADDR_DEFAULT, NET_ADDR_PXE, NET_ADDR_DHCP };

#define NET_MAC_MAX 32
#define NET_BOOT_FILE_MAX 128

struct net_state {
	enum net_boot boot;
	EFI_HANDLE nic;			/* the handle with the service bindings; NULL when none was found */
	uint8_t mac[NET_MAC_MAX];
	size_t mac_len;			/* 0: unknown */
	EFI_PXE_BASE_CODE *pxe;		/* NET_BOOT_PXE */
	uint8_t station[4], mask[4], server[4], gateway[4];
	bool have_station, have_server, have_gateway;
	char boot_file[NET_BOOT_FILE_MAX];	/* PXE: as the DHCP answer named it */
	struct http_url boot_url;	/* NET_BOOT_HTTP */
	/* net_ready() */
	enum net_addr addr;
	bool policy_changed;		/* DHCP was switched on: net_release() puts the policy back */
	uint32_t old_policy;
};

/* Look at how the image was loaded; no traffic.  Safe to call again (the answer is kept). */
const struct net_state *net_probe(void);
/* An address to talk from, waiting at most timeout_ms for DHCP; false with why. */
bool net_ready(uint64_t timeout_ms, char *why, size_t cap);
/* How long a fetch or an upload waits for DHCP at most (an upload's own time-out may cut it shorter). */
#define NET_DHCP_WAIT_MS 10000u
#define US_PER_MS 1000u	/* microseconds in a millisecond: the firmware's Stall counts microseconds */
/* Put back what net_ready changed (the IPv4 policy after DHCP). */
void net_release(void);
/* A service binding on the NIC (TCP4 or HTTP), or NULL. */
EFI_SERVICE_BINDING *net_service_binding(EFI_GUID *guid);
/* True when addr is on the station's own subnet (or nothing says otherwise). */
bool net_on_link(const uint8_t addr[4]);

/* The `network` object of the platform record (null when the image was not loaded over the network). */
void net_record(struct rec *r);
/* One human line for a network boot, or nothing. */
void net_announce(void);
/* "a.b.c.d" */
void net_ip_text(const uint8_t ip[4], char *out, size_t cap);
const char *net_addr_name(enum net_addr a);

#endif
