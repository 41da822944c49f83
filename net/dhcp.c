/* net/dhcp.c - see dhcp.h. */
#include "net/dhcp.h"

#define OPT_PAD 0
#define OPT_END 255
#define COOKIE_LEN 4
static const uint8_t cookie[COOKIE_LEN] = { 99, 130, 83, 99 };

bool dhcp_option(const uint8_t *pkt, size_t len, uint8_t code, const uint8_t **val, size_t *vlen)
{
	size_t i = DHCP_FIXED_LEN + COOKIE_LEN;
	*val = NULL;
	*vlen = 0;
	if (len < i || memcmp(pkt + DHCP_FIXED_LEN, cookie, COOKIE_LEN))
		return false;
	while (i < len) {
		uint8_t c = pkt[i];
		if (c == OPT_END)
			return false;
		if (c == OPT_PAD) {
			i++;
			continue;
		}
		if (i + 2 > len || i + 2 + pkt[i + 1] > len)
			return false;	/* an option running past the packet */
		if (c == code) {
			*val = pkt + i + 2;
			*vlen = pkt[i + 1];
			return true;
		}
		i += 2 + (size_t)pkt[i + 1];
	}
	return false;
}

static void copy_name(char *out, size_t cap, const uint8_t *p, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && p[i] && k + 1 < cap; i++)
		out[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
	out[k] = '\0';
}

void dhcp_boot_file(const uint8_t *pkt, size_t len, char *out, size_t cap)
{
	const uint8_t *v;
	size_t n;
	if (!cap)
		return;
	out[0] = '\0';
	if (dhcp_option(pkt, len, DHCP_OPT_BOOTFILE, &v, &n) && n)
		copy_name(out, cap, v, n);
	else if (len >= DHCP_OFF_FILE + DHCP_FILE_LEN)
		copy_name(out, cap, pkt + DHCP_OFF_FILE, DHCP_FILE_LEN);
}
