/* boot/net.c - see net.h. */
#include "boot/net.h"
#include "boot/efi_net.h"
#include "net/devpath.h"
#include "net/dhcp.h"
#include "net/netcfg.h"
#include "lib/out.h"

#define ETHERNET_IF_TYPE 1	/* RFC 1700 hardware type 1: Ethernet, 6-byte addresses */
#define ETHERNET_ADDR_LEN 6
#define IP4_INFO_BUF 512	/* the interface info and a short route table after it */
#define DHCP_POLL_MS 100

static struct net_state ns;
static bool probed;

static EFI_DEVICE_PATH *device_path_of(EFI_HANDLE h)
{
	static EFI_GUID dp_guid = DEVICE_PATH_PROTOCOL;
	EFI_DEVICE_PATH *dp = NULL;
	if (!h || fw_st->BootServices->HandleProtocol(h, &dp_guid, (void **)&dp) != EFI_SUCCESS)
		return NULL;
	return dp;
}

/* The MAC and URI nodes of a device path. */
static void walk_path(EFI_DEVICE_PATH *dp, uint8_t *if_type, char *uri, size_t uri_cap)
{
	struct devpath_walk w;
	struct devpath_node n;
	uri[0] = '\0';
	devpath_begin(&w, dp, SIZE_MAX);
	while (devpath_next(&w, &n)) {
		if (n.type == DEVPATH_MESSAGING && n.subtype == DEVPATH_MSG_MAC &&
		    n.len + DEVPATH_HEADER >= sizeof(MAC_ADDR_DEVICE_PATH)) {
			const MAC_ADDR_DEVICE_PATH *m = (const void *)(n.data - DEVPATH_HEADER);
			memcpy(ns.mac, m->MacAddress.Addr, NET_MAC_MAX);
			*if_type = m->IfType;
			ns.mac_len = NET_MAC_MAX;
		} else if (n.type == DEVPATH_MESSAGING && n.subtype == DEVPATH_MSG_URI) {
			size_t k = 0;
			for (size_t i = 0; i < n.len && n.data[i] && k + 1 < uri_cap; i++)
				uri[k++] = (char)n.data[i];
			uri[k] = '\0';
		}
	}
}

/* How many bytes of the MAC are the address: the SNP's answer, else Ethernet's six. */
static size_t mac_length(EFI_DEVICE_PATH *path, uint8_t if_type)
{
	static EFI_GUID snp_guid = EFI_SIMPLE_NETWORK_PROTOCOL_GUID;
	EFI_DEVICE_PATH *dp = path;
	EFI_HANDLE h = NULL;
	EFI_SIMPLE_NETWORK *snp = NULL;
	if (dp && fw_st->BootServices->LocateDevicePath(&snp_guid, &dp, &h) == EFI_SUCCESS &&
	    fw_st->BootServices->HandleProtocol(h, &snp_guid, (void **)&snp) == EFI_SUCCESS && snp && snp->Mode &&
	    snp->Mode->HwAddressSize && snp->Mode->HwAddressSize <= NET_MAC_MAX)
		return snp->Mode->HwAddressSize;
	return if_type == ETHERNET_IF_TYPE ? ETHERNET_ADDR_LEN : NET_MAC_MAX;
}

/* The nearest handle along path holding the TCP4 service binding: the NIC. */
static EFI_HANDLE nic_of(EFI_DEVICE_PATH *path)
{
	static EFI_GUID tcp4_sb = EFI_TCP4_SERVICE_BINDING_PROTOCOL;
	static EFI_GUID http_sb = EFI_HTTP_SB_GUID;
	EFI_GUID *guids[2] = { &tcp4_sb, &http_sb };
	for (int i = 0; i < 2; i++) {
		EFI_DEVICE_PATH *dp = path;
		EFI_HANDLE h = NULL;
		if (dp && fw_st->BootServices->LocateDevicePath(guids[i], &dp, &h) == EFI_SUCCESS)
			return h;
	}
	return NULL;
}

static void read_pxe(EFI_HANDLE dev)
{
	static EFI_GUID pxe_guid = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
	EFI_PXE_BASE_CODE *pxe = NULL;
	if (fw_st->BootServices->HandleProtocol(dev, &pxe_guid, (void **)&pxe) != EFI_SUCCESS || !pxe || !pxe->Mode)
		return;
	EFI_PXE_BASE_CODE_MODE *m = pxe->Mode;
	if (!m->Started || m->UsingIpv6)
		return;
	/* The answer that named the boot file: a proxy's or a PXE server's when the DHCP server's did not. */
	const EFI_PXE_BASE_CODE_PACKET *pkts[3] = { NULL, NULL, NULL };
	size_t np = 0;
	if (m->DhcpAckReceived)
		pkts[np++] = &m->DhcpAck;
	if (m->ProxyOfferReceived)
		pkts[np++] = &m->ProxyOffer;
	if (m->PxeReplyReceived)
		pkts[np++] = &m->PxeReply;
	if (!np)
		return;
	ns.boot = NET_BOOT_PXE;
	ns.pxe = pxe;
	memcpy(ns.station, m->StationIp.v4.Addr, 4);
	memcpy(ns.mask, m->SubnetMask.v4.Addr, 4);
	ns.have_station = ns.station[0] || ns.station[1] || ns.station[2] || ns.station[3];
	for (size_t i = 0; i < np; i++) {
		const uint8_t *raw = pkts[i]->Raw;
		const uint8_t *v;
		size_t n;
		if (!ns.have_server && memcmp(raw + DHCP_OFF_SIADDR, "\0\0\0\0", 4)) {
			memcpy(ns.server, raw + DHCP_OFF_SIADDR, 4);
			ns.have_server = true;
		}
		if (!ns.boot_file[0])
			dhcp_boot_file(raw, sizeof(pkts[i]->Raw), ns.boot_file, sizeof(ns.boot_file));
		if (!ns.have_gateway && dhcp_option(raw, sizeof(pkts[i]->Raw), DHCP_OPT_ROUTER, &v, &n) && n >= 4) {
			memcpy(ns.gateway, v, 4);
			ns.have_gateway = true;
		}
	}
	/* No next-server: the DHCP server itself (RFC 2132 §9.7, option 54) serves the file. */
	const uint8_t *v;
	size_t n;
	if (!ns.have_server && dhcp_option(pkts[0]->Raw, sizeof(pkts[0]->Raw), DHCP_OPT_SERVER_ID, &v, &n) && n >= 4) {
		memcpy(ns.server, v, 4);
		ns.have_server = true;
	}
}

const struct net_state *net_probe(void)
{
	if (probed)
		return &ns;
	probed = true;
	memset(&ns, 0, sizeof(ns));
	if (!fw_loaded_image || !fw_loaded_image->DeviceHandle)
		return &ns;
	EFI_HANDLE dev = fw_loaded_image->DeviceHandle;
	EFI_DEVICE_PATH *path = device_path_of(dev);
	uint8_t if_type = 0;
	char uri[HTTP_URL_TEXT_MAX];
	walk_path(path, &if_type, uri, sizeof(uri));
	if (ns.mac_len)
		ns.mac_len = mac_length(path, if_type);
	if (uri[0]) {
		char why[96];
		ns.boot = NET_BOOT_HTTP;
		if (!http_url_parse(uri, strlen(uri), &ns.boot_url, why, sizeof(why)))
			ns.boot_url.host[0] = '\0';	/* https:// or odd: the config cannot be fetched from it */
	} else {
		read_pxe(dev);
	}
	if (ns.boot != NET_BOOT_NONE)
		ns.nic = nic_of(path);
	return &ns;
}

/* A disk or virtual-media boot: the first NIC with a TCP4 service binding. */
static bool find_nic(void)
{
	static EFI_GUID tcp4_sb = EFI_TCP4_SERVICE_BINDING_PROTOCOL;
	EFI_HANDLE *handles = NULL;
	UINTN count = 0;
	if (fw_st->BootServices->LocateHandleBuffer(ByProtocol, &tcp4_sb, NULL, &count, &handles) != EFI_SUCCESS ||
	    !count)
		return false;
	ns.nic = handles[0];
	fw_st->BootServices->FreePool(handles);
	EFI_DEVICE_PATH *path = device_path_of(ns.nic);
	uint8_t if_type = 0;
	char uri[8];
	walk_path(path, &if_type, uri, sizeof(uri));
	if (ns.mac_len)
		ns.mac_len = mac_length(path, if_type);
	return true;
}

static struct efi_ip4_config2 *ip4_config(void)
{
	static EFI_GUID guid = EFI_IP4_CONFIG2_GUID;
	struct efi_ip4_config2 *c = NULL;
	if (!ns.nic || fw_st->BootServices->HandleProtocol(ns.nic, &guid, (void **)&c) != EFI_SUCCESS)
		return NULL;
	return c;
}

/* The NIC's default station address, when it has one. */
static bool default_address(struct efi_ip4_config2 *c, uint8_t out[4], uint8_t mask[4])
{
	union {
		struct efi_ip4_config2_interface_info info;
		uint8_t bytes[IP4_INFO_BUF];
	} buf;
	UINTN size = sizeof(buf);
	if (!c)
		return false;
	EFI_STATUS st = c->get_data(c, EFI_IP4_CONFIG2_INTERFACE_INFO, &size, &buf);
	const struct efi_ip4_config2_interface_info *info = &buf.info;
	void *big = NULL;
	/* A long route table does not fit the buffer: the size the firmware asked for, from the pool. */
	if (st == EFI_BUFFER_TOO_SMALL && fw_st->BootServices->AllocatePool(EfiLoaderData, size, &big) == EFI_SUCCESS) {
		st = c->get_data(c, EFI_IP4_CONFIG2_INTERFACE_INFO, &size, big);
		info = big;
	}
	bool have = st == EFI_SUCCESS;
	if (have) {
		memcpy(out, info->station_address.Addr, 4);
		memcpy(mask, info->subnet_mask.Addr, 4);
		have = out[0] || out[1] || out[2] || out[3];
	}
	if (big)
		fw_st->BootServices->FreePool(big);
	return have;
}

/*
 * The NIC's stored static settings that a change of policy would lose
 * (edk2's Ip4Config2SetPolicy clears the manual address, gateway and DNS
 * servers on any change, and net_release puts back only the policy): the
 * first one set, or NULL.  A size of 0 asks only whether there is one
 * (EFI_BUFFER_TOO_SMALL: there is; UEFI 2.10 ch. 28, GetData()).
 */
static const char *static_setting(struct efi_ip4_config2 *c)
{
	static const struct {
		UINT32 type;
		const char *name;
	} kinds[] = { { EFI_IP4_CONFIG2_MANUAL_ADDRESS, "a manual address" },
		      { EFI_IP4_CONFIG2_GATEWAY, "a gateway" },
		      { EFI_IP4_CONFIG2_DNS_SERVER, "DNS servers" } };
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		UINTN size = 0;
		if (c->get_data(c, kinds[i].type, &size, NULL) == EFI_BUFFER_TOO_SMALL && size)
			return kinds[i].name;
	}
	return NULL;
}

bool net_ready(uint64_t timeout_ms, char *why, size_t cap)
{
	net_probe();
	if (ns.addr != NET_ADDR_NONE)
		return true;
	if (!ns.nic && !find_nic()) {
		snprintf(why, cap, "no network interface with a TCP/IPv4 stack (the firmware drives no NIC, or its "
			 "network stack is off)");
		return false;
	}
	struct efi_ip4_config2 *c = ip4_config();
	uint8_t addr[4], mask[4];
	if (default_address(c, addr, mask)) {
		ns.addr = NET_ADDR_DEFAULT;
		memcpy(ns.station, addr, 4);
		memcpy(ns.mask, mask, 4);
		ns.have_station = true;
		return true;
	}
	if (ns.boot == NET_BOOT_PXE && ns.have_station) {
		ns.addr = NET_ADDR_PXE;
		return true;
	}
	if (!c) {
		snprintf(why, cap, "the network interface has no address and no EFI_IP4_CONFIG2_PROTOCOL to get one");
		return false;
	}
	UINT32 policy = EFI_IP4_CONFIG2_POLICY_STATIC;
	UINTN size = sizeof(policy);
	if (c->get_data(c, EFI_IP4_CONFIG2_POLICY, &size, &policy) != EFI_SUCCESS)
		policy = EFI_IP4_CONFIG2_POLICY_STATIC;
	const char *kept = policy == EFI_IP4_CONFIG2_POLICY_DHCP ? NULL : static_setting(c);
	if (kept) {
		snprintf(why, cap, "the network interface is set up statically (%s) but has no address yet: pmuboot "
			 "does not switch it to DHCP, which would clear those stored settings", kept);
		return false;
	}
	if (policy != EFI_IP4_CONFIG2_POLICY_DHCP) {
		UINT32 dhcp = EFI_IP4_CONFIG2_POLICY_DHCP;
		EFI_STATUS st = c->set_data(c, EFI_IP4_CONFIG2_POLICY, sizeof(dhcp), &dhcp);
		if (st != EFI_SUCCESS && st != EFI_NOT_READY) {
			snprintf(why, cap, "the firmware refused to start DHCP on the network interface (%s)",
				 efi_status_name(st));
			return false;
		}
		ns.policy_changed = true;
		ns.old_policy = policy;
	}
	EFI_EVENT deadline = fw_deadline(timeout_ms);
	bool got = false;
	while (!(got = default_address(c, addr, mask)) && !fw_deadline_passed(deadline))
		fw_stall_us(DHCP_POLL_MS * US_PER_MS);
	fw_deadline_end(deadline);
	if (!got) {
		snprintf(why, cap, "DHCP gave the network interface no address within %llu ms",
			 (unsigned long long)timeout_ms);
		return false;
	}
	ns.addr = NET_ADDR_DHCP;
	memcpy(ns.station, addr, 4);
	memcpy(ns.mask, mask, 4);
	ns.have_station = true;
	return true;
}

void net_release(void)
{
	struct efi_ip4_config2 *c = ip4_config();
	if (ns.policy_changed && c) {
		/* The policy is kept in the NIC's non-volatile settings: leave it as the run found it. */
		c->set_data(c, EFI_IP4_CONFIG2_POLICY, sizeof(ns.old_policy), &ns.old_policy);
		ns.policy_changed = false;
		ns.addr = NET_ADDR_NONE;
	}
}

EFI_SERVICE_BINDING *net_service_binding(EFI_GUID *guid)
{
	EFI_SERVICE_BINDING *sb = NULL;
	if (!ns.nic || fw_st->BootServices->HandleProtocol(ns.nic, guid, (void **)&sb) != EFI_SUCCESS)
		return NULL;
	return sb;
}

bool net_on_link(const uint8_t addr[4])
{
	if (!ns.have_station)
		return true;
	for (int i = 0; i < 4; i++)
		if ((addr[i] & ns.mask[i]) != (ns.station[i] & ns.mask[i]))
			return false;
	return true;
}

void net_ip_text(const uint8_t ip[4], char *out, size_t cap)
{
	snprintf(out, cap, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
}

static const char *const boot_names[] = { [NET_BOOT_NONE] = "none", [NET_BOOT_PXE] = "pxe", [NET_BOOT_HTTP] = "http" };
static const char *const addr_names[] = {
	[NET_ADDR_NONE] = "none", [NET_ADDR_DEFAULT] = "default", [NET_ADDR_PXE] = "pxe", [NET_ADDR_DHCP] = "dhcp"
};

const char *net_addr_name(enum net_addr a)
{
	return addr_names[a];
}

void net_record(struct rec *r)
{
	char mac[3 * NET_MAC_MAX], ip[16];
	net_probe();
	if (ns.boot == NET_BOOT_NONE) {
		rec_null(r, "network");
		return;
	}
	rec_obj(r, "network");
	rec_str(r, "boot", boot_names[ns.boot]);
	netcfg_mac_text(ns.mac, ns.mac_len, ':', mac, sizeof(mac));
	rec_str(r, "mac", ns.mac_len ? mac : NULL);
	if (ns.have_station) {
		net_ip_text(ns.station, ip, sizeof(ip));
		rec_str(r, "station", ip);
	} else {
		rec_null(r, "station");
	}
	if (ns.boot == NET_BOOT_PXE) {
		if (ns.have_server) {
			net_ip_text(ns.server, ip, sizeof(ip));
			rec_str(r, "server", ip);
		} else {
			rec_null(r, "server");
		}
		rec_str(r, "boot_file", ns.boot_file);
	} else {
		char url[HTTP_URL_TEXT_MAX];
		if (ns.boot_url.host[0])
			http_url_text(&ns.boot_url, url, sizeof(url));
		rec_str(r, "boot_url", ns.boot_url.host[0] ? url : NULL);
	}
	rec_obj_end(r);
}

void net_announce(void)
{
	char mac[3 * NET_MAC_MAX], ip[16], shown[NET_BOOT_FILE_MAX * 4];
	net_probe();
	if (ns.boot == NET_BOOT_NONE)
		return;
	netcfg_mac_text(ns.mac, ns.mac_len, ':', mac, sizeof(mac));
	net_ip_text(ns.station, ip, sizeof(ip));
	if (ns.boot == NET_BOOT_PXE)
		out_text("network: loaded by PXE on %s as %s, boot file %s", ns.mac_len ? mac : "(MAC unknown)",
			 ns.have_station ? ip : "(no address)", out_clean(shown, sizeof(shown), ns.boot_file));
	else
		out_text("network: loaded by UEFI HTTP boot on %s", ns.mac_len ? mac : "(MAC unknown)");
}
