/*
 * boot/efi_net.h - the UEFI network interfaces gnu-efi 3.0.15 does not
 * declare: EFI_HTTP_PROTOCOL and its service binding (UEFI 2.10 ch. 29,
 * "EFI HTTP Protocol"), EFI_IP4_CONFIG2_PROTOCOL (ch. 28, "EFI IPv4
 * Configuration II Protocol") and the URI device path node (ch. 10).
 * Written from the specification; the GUIDs and layouts were checked
 * against edk2's MdePkg/Include/Protocol/Http.h and Ip4Config2.h.  Our own
 * names (efi_http, ...) so that a later gnu-efi declaring them cannot clash.
 * TCP4, PXE base code, SNP and the generic service binding come from
 * gnu-efi (efitcp.h, efipxebc.h, efinet.h, efiprot.h).
 */
#ifndef PMUBOOT_BOOT_EFI_NET_H
#define PMUBOOT_BOOT_EFI_NET_H

#include <efi.h>
#include "net/efi_status.h"

#define EFI_HTTP_SB_GUID \
	{ 0xbdc8e6af, 0xd9bc, 0x4379, { 0xa7, 0x2a, 0xe0, 0xc4, 0xe7, 0x5d, 0xae, 0x1c } }
#define EFI_HTTP_GUID \
	{ 0x7a59b29b, 0x910b, 0x4171, { 0x82, 0x42, 0xa8, 0x5a, 0x0d, 0xf2, 0x5b, 0x5b } }
#define EFI_IP4_CONFIG2_GUID \
	{ 0x5b446ed1, 0xe30b, 0x4faa, { 0x87, 0x1a, 0x36, 0x54, 0xec, 0xa3, 0x60, 0x80 } }

/* UEFI 2.10 appendix D: the HTTP protocol's status for a response that carries an HTTP error. */
#define EFI_NET_HTTP_ERROR EFIERR(35)
_Static_assert(EFI_NET_HTTP_ERROR == EFI_STATUS_ERR(35) && EFI_CONNECTION_REFUSED == EFI_STATUS_ERR(106),
	       "net/efi_status.c names the statuses by the numbers gnu-efi uses");

/* EFI_HTTP_VERSION, EFI_HTTP_METHOD: only the values used. */
#define EFI_HTTP_VERSION_11 1
#define EFI_HTTP_METHOD_GET 0
#define EFI_HTTP_METHOD_POST 1

struct efi_http_v4_access_point {
	BOOLEAN use_default_address;
	EFI_IPv4_ADDRESS local_address;
	EFI_IPv4_ADDRESS local_subnet;
	UINT16 local_port;
};

struct efi_http_config {
	UINT32 http_version;		/* EFI_HTTP_VERSION, an enum */
	UINT32 timeout_ms;
	BOOLEAN local_address_is_ipv6;
	union {
		struct efi_http_v4_access_point *ipv4;
		void *ipv6;
	} access_point;
};

struct efi_http_request_data {
	UINT32 method;			/* EFI_HTTP_METHOD */
	CHAR16 *url;
};

struct efi_http_response_data {
	UINT32 status_code;		/* EFI_HTTP_STATUS_CODE: an index, net/http.h http_status_from_efi */
};

struct efi_http_header {
	CHAR8 *name;
	CHAR8 *value;
};

struct efi_http_message {
	union {
		struct efi_http_request_data *request;
		struct efi_http_response_data *response;
	} data;
	UINTN header_count;
	struct efi_http_header *headers;
	UINTN body_length;
	void *body;
};

struct efi_http_token {
	EFI_EVENT event;
	EFI_STATUS status;
	struct efi_http_message *message;
};

struct efi_http {
	EFI_STATUS (EFIAPI *get_mode_data)(struct efi_http *self, struct efi_http_config *cfg);
	EFI_STATUS (EFIAPI *configure)(struct efi_http *self, struct efi_http_config *cfg);
	EFI_STATUS (EFIAPI *request)(struct efi_http *self, struct efi_http_token *token);
	EFI_STATUS (EFIAPI *cancel)(struct efi_http *self, struct efi_http_token *token);
	EFI_STATUS (EFIAPI *response)(struct efi_http *self, struct efi_http_token *token);
	EFI_STATUS (EFIAPI *poll)(struct efi_http *self);
};

/* EFI_IP4_CONFIG2_DATA_TYPE and EFI_IP4_CONFIG2_POLICY. */
#define EFI_IP4_CONFIG2_INTERFACE_INFO 0
#define EFI_IP4_CONFIG2_POLICY 1
#define EFI_IP4_CONFIG2_MANUAL_ADDRESS 2
#define EFI_IP4_CONFIG2_GATEWAY 3
#define EFI_IP4_CONFIG2_DNS_SERVER 4
#define EFI_IP4_CONFIG2_POLICY_STATIC 0
#define EFI_IP4_CONFIG2_POLICY_DHCP 1
#define EFI_IP4_CONFIG2_NAME_SIZE 32

struct efi_ip4_config2_interface_info {
	CHAR16 name[EFI_IP4_CONFIG2_NAME_SIZE];
	UINT8 if_type;
	UINT32 hw_address_size;
	EFI_MAC_ADDRESS hw_address;
	EFI_IPv4_ADDRESS station_address;
	EFI_IPv4_ADDRESS subnet_mask;
	UINT32 route_table_size;
	void *route_table;
};

struct efi_ip4_config2 {
	EFI_STATUS (EFIAPI *set_data)(struct efi_ip4_config2 *self, UINT32 type, UINTN size, void *data);
	EFI_STATUS (EFIAPI *get_data)(struct efi_ip4_config2 *self, UINT32 type, UINTN *size, void *data);
	EFI_STATUS (EFIAPI *register_notify)(struct efi_ip4_config2 *self, UINT32 type, EFI_EVENT ev);
	EFI_STATUS (EFIAPI *unregister_notify)(struct efi_ip4_config2 *self, UINT32 type, EFI_EVENT ev);
};

#endif
