/* run/config_text.c - a value of a struct config back as the text that sets it; see config.h. */
#include "run/config_int.h"
#include "lib/strbuf.h"

static void value_text(const struct opt_def *o, const struct config *c, char *buf, size_t cap)
{
	const char *field = (const char *)c + o->offset;

	switch (o->type) {
	case OPT_ENUM:
		snprintf(buf, cap, "%s", o->choices[*(const int *)field]);
		break;
	case OPT_BOOL:
		snprintf(buf, cap, "%s", *(const bool *)field ? "on" : "off");
		break;
	case OPT_COUNTDOWN:
		if (*(const int32_t *)field < 0)
			snprintf(buf, cap, "auto");
		else
			snprintf(buf, cap, "%d", *(const int32_t *)field);
		break;
	case OPT_U32:
		snprintf(buf, cap, "%u", *(const uint32_t *)field);
		break;
	case OPT_U64:
		snprintf(buf, cap, "0x%llx", (unsigned long long)*(const uint64_t *)field);
		break;
	case OPT_STR:
		snprintf(buf, cap, "%s", field);
		break;
	case OPT_HEX_KERNEL: {
		size_t k = 0;
		buf[0] = 0;
		for (uint32_t i = 0; i < c->n_hex_kernels; i++)
			k = str_appendf(buf, cap, k, "%s%s=%s", i ? "," : "", c->hex_kernels[i].name,
					c->hex_kernels[i].hex);
		break;
	}
	case OPT_FREQ: {
		const struct freq_cfg *f = (const struct freq_cfg *)field;
		if (f->sel == FREQ_SEL_MHZ)
			snprintf(buf, cap, "%u", f->mhz);
		else
			snprintf(buf, cap, "%s", config_freq_words[f->sel]);
		break;
	}
	case OPT_SERIAL: {
		const struct serial_cfg *s = (const struct serial_cfg *)field;
		if (s->kind == SERIAL_AUTO || s->kind == SERIAL_OFF)
			snprintf(buf, cap, "%s", s->kind == SERIAL_AUTO ? "auto" : "off");
		else
			snprintf(buf, cap, "%s0x%llx,%u",
				 s->kind == SERIAL_MMIO8 ? "mmio," : s->kind == SERIAL_MMIO32 ? "mmio32," : "",
				 (unsigned long long)s->base, s->baud);
		break;
	}
	}
}

/*
 * kernel.NAME is a family of keys.  Its table row's own key (KERNEL_KEY_DOC,
 * which no kernel can be named: names are lower case) stands for the whole
 * family: NAME=HEX for each, comma-separated, as the `begin` record shows
 * them.  A real key, kernel.add, has its one kernel's HEX ("" when none).
 */
static void hex_kernel_text(const struct config *c, const char *key, char *buf, size_t cap)
{
	size_t plen = sizeof(KERNEL_KEY_PREFIX) - 1;
	buf[0] = 0;
	for (uint32_t i = 0; i < c->n_hex_kernels; i++)
		if (!strcmp(c->hex_kernels[i].name, key + plen))
			snprintf(buf, cap, "%s", c->hex_kernels[i].hex);
}

bool config_value_text(const struct config *c, const char *key, char *buf, size_t cap)
{
	const struct opt_def *o = config_opt_find(key, strlen(key));
	if (!o)
		return false;
	if (o->type == OPT_HEX_KERNEL && strcmp(key, KERNEL_KEY_DOC))
		hex_kernel_text(c, key, buf, cap);
	else
		value_text(o, c, buf, cap);
	return true;
}

size_t config_key_count(void) { return config_opts_n; }
const char *config_key_at(size_t i) { return i < config_opts_n ? config_opts[i].key : NULL; }

