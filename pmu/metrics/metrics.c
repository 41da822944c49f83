/* pmu/metrics/metrics.c - the tables and the evaluator; see metrics.h and metrics_table.h. */
#include "pmu/metrics/metrics_table.h"
#include "cpu/uarch.h"
#include "lib/heap.h"
#include "lib/record.h"

/* mt_metric.unit (tools/gen_metrics.py UNITS). */
static const char *const unit_names[] = { "", "percent", "per instruction" };

/* The name whose codes start at mt_codes[off], into buf (cut to cap - 1 characters). */
static const char *name_at(uint16_t off, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	while (off < mt_codes_size && mt_codes[off]) {
		unsigned c = mt_codes[off++], tok;
		if (c <= MT_TOKEN_ONE_BYTE) {
			tok = c - 1;
		} else {
			if (off >= mt_codes_size)
				break;
			tok = MT_TOKEN_ONE_BYTE + (((c - MT_TOKEN_TWO_BYTE_LEAD) << 8) | mt_codes[off++]);
		}
		if (tok >= mt_token_count)
			break;
		for (const char *t = &mt_token_text[mt_token_at[tok]]; *t && n + 1 < cap; t++)
			buf[n++] = *t;
	}
	buf[n] = 0;
	return buf;
}

static struct {
	enum { MT_UNTRIED, MT_READY, MT_NONE } state;
	struct mt_data dag;	/* the inflated tables, as the evaluator walks them */
} T;

/*
 * Whether the tables can be read: the first call inflates the blob (metrics_table.h) into memory that
 * stays for the run.  Without the memory, or with a blob that does not inflate to the tables the
 * generator wrote (a damaged image), there are no tables from then on: one error record says why, and
 * every lookup finds nothing, which callers already meet on a core whose vendor publishes no formulas.
 * Every public entry point that reads a table comes through here (those given a table through
 * table_ok: a table is one of mt_tables only once they are ready).
 */
static bool tables_ready(void)
{
	if (T.state == MT_UNTRIED) {
		size_t room = unlz_tables_room(&mt_blob);
		uint8_t *buf = heap_alloc(room, MT_TABLE_ALIGN);
		enum unlz_status st = buf ? unlz_tables(&mt_blob, buf, room) : UNLZ_NO_MEMORY;
		if (st == UNLZ_OK) {
			mt_tables_place(buf);
			T.dag = (struct mt_data){ mt_nodes, &mt_node_count, mt_numbers, &mt_number_count, &mt_input_count };
		} else {
			rec_error("metrics", "tables", "no top-down metric tables: %s (%u bytes stored, %zu needed to inflate)",
				  unlz_status_name(st), (unsigned)mt_blob.stream_n, room);
		}
		T.state = st == UNLZ_OK ? MT_READY : MT_NONE;
	}
	return T.state == MT_READY;
}

/* Whether t is one of the tables (so the tables are ready and t's lists can be read). */
static bool table_ok(const struct metrics_table *t)
{
	return t && tables_ready() && t >= mt_tables && t < mt_tables + mt_table_count;
}

bool metrics_ready(void)
{
	return tables_ready();
}

size_t metrics_table_count(void)
{
	return tables_ready() ? mt_table_count : 0;
}

const struct metrics_table *metrics_table_at(size_t i)
{
	return tables_ready() && i < mt_table_count ? &mt_tables[i] : NULL;
}

const struct metrics_table *metrics_table_find(const char *set_key)
{
	char key[METRIC_NAME_MAX];
	for (size_t i = 0; set_key && tables_ready() && i < mt_table_count; i++)
		if (!strcmp(name_at(mt_tables[i].key, key, sizeof(key)), set_key))
			return &mt_tables[i];
	return NULL;
}

const struct metrics_table *metrics_for_cpu(const struct cpu_info *ci, const char **why)
{
	const struct metrics_table *t = ci ? metrics_table_find(ci->event_set) : NULL;
	*why = NULL;
	if (!ci || !ci->event_set) {
		*why = "no event set was identified for it";
		return NULL;
	}
	if (!t && !tables_ready()) {
		*why = "the image's top-down metric tables could not be inflated (the error record says why)";
		return NULL;
	}
	if (!t) {
		*why = "its vendor publishes no top-down formulas for it (events/metrics/tables.csv lists the cores "
		       "that have them)";
		return NULL;
	}
	if (!ci->event_set_basis || strcmp(ci->event_set_basis, uarch_basis_name(BASIS_VENDOR))) {
		*why = "identification lent it a related core's events, and the vendor's formulas are not mapped to it";
		return NULL;
	}
	return t;
}

const char *metrics_table_key(const struct metrics_table *t, char buf[METRIC_NAME_MAX])
{
	buf[0] = 0;
	return table_ok(t) ? name_at(t->key, buf, METRIC_NAME_MAX) : buf;
}

const char *metrics_table_source(const struct metrics_table *t, char buf[METRIC_NAME_MAX])
{
	buf[0] = 0;
	return table_ok(t) ? name_at(t->source, buf, METRIC_NAME_MAX) : buf;
}

size_t metrics_count(const struct metrics_table *t)
{
	return table_ok(t) ? t->n : 0;
}

unsigned metrics_table_width(const struct metrics_table *t)
{
	return table_ok(t) ? mt_table_width[t - mt_tables] : 0;
}

static const struct mt_metric *metric_of(const struct metrics_table *t, size_t i)
{
	return &mt_metrics[mt_lists[t->first + i]];
}

void metrics_at(const struct metrics_table *t, size_t i, struct metric_info *out)
{
	memset(out, 0, sizeof(*out));
	out->unit = "";
	if (!table_ok(t) || i >= t->n)
		return;
	const struct mt_metric *m = metric_of(t, i);
	name_at(m->name, out->name, sizeof(out->name));
	out->level = m->level2 ? 2 : 1;
	name_at(m->parent, out->parent, sizeof(out->parent));
	out->unit = m->unit < ARRAY_SIZE(unit_names) ? unit_names[m->unit] : "";
	/* The vendors' tree nodes are in percent; the Info_/Bottleneck_ metrics (level 1, own units) are not
	 * nodes of it, nor is anything with a unit of its own. */
	out->tree = m->unit == 1 && strncmp(out->name, "Info_", 5) && strncmp(out->name, "Bottleneck_", 11);
}

long metrics_index(const struct metrics_table *t, const char *name)
{
	char buf[METRIC_NAME_MAX];
	for (size_t i = 0; name && table_ok(t) && i < t->n; i++)
		if (!strcmp(name_at(metric_of(t, i)->name, buf, sizeof(buf)), name))
			return (long)i;
	return -1;
}

size_t metrics_input_total(void)
{
	return tables_ready() ? mt_input_count : 0;
}

void metrics_input_at(unsigned input, struct metric_input *out)
{
	memset(out, 0, sizeof(*out));
	if (!tables_ready() || input >= mt_input_count)
		return;
	const struct mt_input *in = &mt_inputs[input];
	name_at(in->name, out->name, sizeof(out->name));
	name_at(in->spec, out->spec, sizeof(out->spec));
	out->kind = (enum metric_input_kind)in->kind;
	out->arg = in->arg;
}

/* ---- which inputs ---- */

#define REF_WORDS ((1u << MT_REF_INDEX_BITS) / 32)

static void mark_inputs(uint16_t ref, uint32_t *seen_nodes, uint32_t *inputs)
{
	/* An explicit stack: a formula is at most MT_MAX_DEPTH deep, so its operands fit twice over. */
	uint16_t stack[2 * MT_MAX_DEPTH + 2];
	unsigned sp = 0;
	stack[sp++] = ref;
	while (sp) {
		ref = stack[--sp];
		unsigned k = MT_REF_KIND(ref), i = MT_REF_INDEX(ref);
		if (k == MT_REF_INPUT) {
			inputs[i / 32] |= 1u << (i % 32);
			continue;
		}
		if (k != MT_REF_NODE || i >= mt_node_count || (seen_nodes[i / 32] >> (i % 32)) & 1)
			continue;
		seen_nodes[i / 32] |= 1u << (i % 32);
		if (sp + 2 <= ARRAY_SIZE(stack)) {
			stack[sp++] = (uint16_t)mt_nodes[i].b;
			stack[sp++] = (uint16_t)mt_nodes[i].a;
		}
	}
}

size_t metrics_inputs(const struct metrics_table *t, size_t i, uint16_t *out, size_t cap)
{
	uint32_t seen_nodes[REF_WORDS], inputs[REF_WORDS];
	size_t n = 0;

	if (!table_ok(t))
		return 0;
	memset(seen_nodes, 0, sizeof(seen_nodes));
	memset(inputs, 0, sizeof(inputs));
	for (size_t k = 0; k < t->n; k++)
		if (i == METRICS_ALL || k == i)
			mark_inputs(metric_of(t, k)->root, seen_nodes, inputs);
	for (unsigned in = 0; in < mt_input_count; in++)
		if ((inputs[in / 32] >> (in % 32)) & 1) {
			if (n < cap)
				out[n] = (uint16_t)in;
			n++;
		}
	return n;
}

/* ---- evaluation ---- */

struct eval_ctx {
	const struct mt_data *d;
	metrics_input_fn get;
	void *ctx;
};

static enum metric_null from_status(enum mnum_status s)
{
	return s == MNUM_OK ? METRIC_OK : s == MNUM_DIV_ZERO ? METRIC_DIV_ZERO : METRIC_RANGE;
}

static void eval(const struct eval_ctx *c, uint16_t ref, unsigned depth, struct metric_result *r)
{
	struct metric_result b;
	enum mnum_status s = MNUM_OK;
	unsigned kind = MT_REF_KIND(ref), i = MT_REF_INDEX(ref);

	r->why = METRIC_OK;
	r->value = mnum_zero();
	r->input = -1;
	if (kind == MT_REF_NUMBER && i < *c->d->number_count) {
		r->value = c->d->numbers[i];
		return;
	}
	if (kind == MT_REF_INPUT && i < *c->d->input_count) {
		if (!c->get(c->ctx, i, &r->value)) {
			r->why = METRIC_MISSING;
			r->value = mnum_zero();
			r->input = (int)i;
		}
		return;
	}
	if (kind != MT_REF_NODE || i >= *c->d->node_count || depth > MT_MAX_DEPTH) {
		r->why = METRIC_RANGE;	/* not reached: the generator checks the table */
		return;
	}
	const struct mt_node *x = &c->d->nodes[i];
	if (x->op == MT_IF) {
		eval(c, (uint16_t)x->a, depth + 1, r);
		if (r->why != METRIC_OK)
			return;
		if (MT_REF_KIND(x->b) != MT_REF_NODE || MT_REF_INDEX(x->b) >= *c->d->node_count) {
			r->why = METRIC_RANGE;
			return;
		}
		const struct mt_node *branches = &c->d->nodes[MT_REF_INDEX(x->b)];
		eval(c, (uint16_t)(mnum_is_zero(r->value) ? branches->b : branches->a), depth + 1, r);
		return;
	}
	if (x->op == MT_ELSE) {
		r->why = METRIC_RANGE;	/* only reached through its MT_IF */
		return;
	}
	/* Binary: Python evaluates both operands, left first; the first null is the result's. */
	eval(c, (uint16_t)x->a, depth + 1, r);
	if (r->why != METRIC_OK)
		return;
	eval(c, (uint16_t)x->b, depth + 1, &b);
	if (b.why != METRIC_OK) {
		*r = b;
		return;
	}
	struct mnum a = r->value, v = mnum_zero();
	int cmp;
	switch (x->op) {
	case MT_ADD: s = mnum_add(a, b.value, &v); break;
	case MT_SUB: s = mnum_sub(a, b.value, &v); break;
	case MT_MUL: s = mnum_mul(a, b.value, &v); break;
	case MT_DIV: s = mnum_div(a, b.value, &v); break;
	case MT_MIN: v = mnum_cmp(b.value, a) < 0 ? b.value : a; break;	/* Python: the first on a tie */
	case MT_MAX: v = mnum_cmp(b.value, a) > 0 ? b.value : a; break;
	default:
		cmp = mnum_cmp(a, b.value);
		v = mnum_from_u64(x->op == MT_GT ? cmp > 0 : x->op == MT_LT ? cmp < 0 : x->op == MT_GE ? cmp >= 0 : cmp <= 0);
		break;
	}
	r->why = from_status(s);
	r->value = r->why == METRIC_OK ? v : mnum_zero();
}

void mt_eval(const struct mt_data *d, uint16_t ref, metrics_input_fn get, void *ctx, struct metric_result *out)
{
	struct eval_ctx c = { d, get, ctx };
	eval(&c, ref, 0, out);
}

void metrics_eval(const struct metrics_table *t, size_t i, metrics_input_fn get, void *ctx, struct metric_result *out)
{
	if (!table_ok(t) || i >= t->n) {
		out->why = METRIC_RANGE;
		out->value = mnum_zero();
		out->input = -1;
		return;
	}
	mt_eval(&T.dag, metric_of(t, i)->root, get, ctx, out);
}

const char *metrics_null_text(enum metric_null why)
{
	switch (why) {
	case METRIC_MISSING: return "missing input";
	case METRIC_DIV_ZERO: return "division by zero";
	case METRIC_RANGE: return "out of range";
	default: return NULL;
	}
}
