/* net/netcfg.c - see netcfg.h. */
#include "net/netcfg.h"
#include "lib/strbuf.h"

#define CFG_PREFIX "pmuboot-"
#define CFG_DEFAULT "pmuboot.cfg"
#define CFG_SUFFIX ".cfg"

void netcfg_mac_text(const uint8_t *mac, size_t mac_len, char sep, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;
	if (cap)
		out[0] = '\0';
	for (size_t i = 0; i < mac_len && i < NETCFG_MAC_MAX; i++) {
		size_t need = (i && sep ? 1 : 0) + 2 + 1;	/* separator, two digits, the NUL */
		if (k + need > cap)
			break;
		if (i && sep)
			out[k++] = sep;
		out[k++] = hex[mac[i] >> 4];
		out[k++] = hex[mac[i] & 0xf];
		out[k] = '\0';
	}
}

size_t netcfg_dir(const char *boot_file, char *out, size_t cap)
{
	size_t dir = 0;
	for (size_t i = 0; boot_file[i]; i++)
		if (boot_file[i] == '/' || boot_file[i] == '\\')
			dir = i + 1;
	if (dir >= cap)
		dir = 0;	/* cannot hold it: the server's root rather than half a path */
	memcpy(out, boot_file, dir);
	out[dir] = '\0';
	return dir;
}

static void name(struct netcfg_try *t, const char *kind, const char *dir, const char *middle)
{
	t->kind = kind;
	t->skipped = NULL;
	size_t k = str_appendf(t->name, sizeof(t->name), 0, "%s%s", dir, middle);
	if (k >= sizeof(t->name)) {
		t->name[0] = '\0';
		t->skipped = "the boot file's directory is too long for a file name";
	}
}

void netcfg_names(const char *dir, const char *uuid, const uint8_t *mac, size_t mac_len,
		  struct netcfg_try out[NETCFG_NAMES])
{
	char middle[NETCFG_NAME_MAX], mtext[2 * NETCFG_MAC_MAX + 1];

	if (uuid && uuid[0]) {
		snprintf(middle, sizeof(middle), CFG_PREFIX "%s" CFG_SUFFIX, uuid);
		name(&out[0], "uuid", dir, middle);
	} else {
		out[0] = (struct netcfg_try){ "uuid", "", "the machine has no SMBIOS system UUID (absent, all zeros "
						  "or all ones)" };
	}
	if (mac && mac_len) {
		netcfg_mac_text(mac, mac_len, 0, mtext, sizeof(mtext));
		snprintf(middle, sizeof(middle), CFG_PREFIX "%s" CFG_SUFFIX, mtext);
		name(&out[1], "mac", dir, middle);
	} else {
		out[1] = (struct netcfg_try){ "mac", "", "the network interface's MAC address is unknown" };
	}
	name(&out[2], "default", dir, CFG_DEFAULT);
}

size_t netcfg_skip_program_word(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && s[i] == ' ')
		i++;
	size_t w = i;
	while (i < len && s[i] != ' ')
		i++;
	for (size_t k = w; k < i; k++)
		if (s[k] == '=')
			return 0;
	return i;
}

int netcfg_fetch_first(struct netcfg_asked *a, netcfg_fetch_fn *fetch, void *ctx, char *buf, size_t cap, long *len)
{
	static const char *const said[] = {
		[NETCFG_SKIPPED] = "skipped: %s", [NETCFG_NOT_ASKED] = "not asked: an earlier file was used",
		[NETCFG_USED] = "used", [NETCFG_ABSENT] = "not found", [NETCFG_FAILED] = "not read: %s",
	};
	int used = -1;
	for (int i = 0; i < NETCFG_NAMES; i++) {
		const struct netcfg_try *t = &a->tries[i];
		char *why = a->why[i];
		a->where[i][0] = why[0] = '\0';
		if (t->skipped) {
			a->outcome[i] = NETCFG_SKIPPED;
			snprintf(why, NETCFG_WHY_MAX, "%s", t->skipped);
		} else if (used >= 0) {
			a->outcome[i] = NETCFG_NOT_ASKED;
		} else {
			long n = fetch(ctx, t->name, buf, cap, a->where[i], sizeof(a->where[i]), why, NETCFG_WHY_MAX);
			a->outcome[i] = n >= 0 ? NETCFG_USED : n == NET_FETCH_ABSENT ? NETCFG_ABSENT : NETCFG_FAILED;
			if (n >= 0) {
				*len = n;
				used = i;
			}
		}
		snprintf(a->result[i], NETCFG_RESULT_MAX, said[a->outcome[i]], why);
	}
	return used;
}
