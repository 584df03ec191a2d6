/*
 * fiojob_keys.c - the mapping table of fio keys, made of fiojob_rows.h's
 * rows: the reader looks keys up in it and `iobench keys --fio` prints it
 * (fiojob_int.h, docs/fio.md).
 */
#include "fiojob_int.h"

const struct fio_key fj_keys[] = {
#define FJ_CODE(k, ...) [k] = {__VA_ARGS__},
#define FJ_ROW(...) {__VA_ARGS__},
#include "fiojob_rows.h"
#undef FJ_CODE
#undef FJ_ROW
};
const int fj_nkeys = (int)(sizeof fj_keys / sizeof fj_keys[0]);
_Static_assert(sizeof fj_keys / sizeof fj_keys[0] <= FJ_KEYS_MAX, "raise FJ_KEYS_MAX (fiojob_int.h)");

int fj_key_lookup(const char *name)
{
	for (int k = 0; k < fj_nkeys; k++) {
		if (strcmp(fj_keys[k].name, name) == 0)
			return k;
		const char *a = fj_keys[k].aliases;
		size_t n = strlen(name);
		while (*a) {
			size_t len = strcspn(a, ",");
			if (len == n && strncmp(a, name, n) == 0)
				return k;
			a += len;
			while (*a == ',' || *a == ' ')
				a++;
		}
	}
	return -1;
}

int iob_fio_keys_print(FILE *f, int markdown)
{
	int w0 = 7, w1 = 7, w2 = 7;
	for (int k = 0; k < fj_nkeys && !markdown; k++) {
		int l0 = (int)strlen(fj_keys[k].name), l1 = (int)strlen(fj_keys[k].aliases),
		    l2 = (int)strlen(fj_keys[k].iobench);
		w0 = l0 > w0 ? l0 : w0;
		w1 = l1 > w1 ? l1 : w1;
		w2 = l2 > w2 ? l2 : w2;
	}
	if (markdown)
		fprintf(f, "| fio key | aliases | iobench | what is accepted, what it does |\n|---|---|---|---|\n");
	else
		fprintf(f, "%-*s  %-*s  %-*s  %s\n", w0, "FIO KEY", w1, "ALIASES", w2, "IOBENCH", "WHAT IT DOES");
	for (int k = 0; k < fj_nkeys; k++) {
		const struct fio_key *e = &fj_keys[k];
		if (markdown) {
			fprintf(f, "| `%s` | ", e->name);
			const char *a = e->aliases;
			while (*a) {
				size_t len = strcspn(a, ",");
				fprintf(f, "%s`%.*s`", a == e->aliases ? "" : ", ", (int)len, a);
				a += len;
				while (*a == ',' || *a == ' ')
					a++;
			}
			fprintf(f, " | %s | ", e->iobench);
			for (const char *c = e->how; *c; c++) /* a table cell: '|' escaped */
				fprintf(f, "%s%c", *c == '|' ? "\\" : "", *c);
			fprintf(f, " |\n");
		} else {
			fprintf(f, "%-*s  %-*s  %-*s  %s\n", w0, e->name, w1, e->aliases[0] ? e->aliases : "-", w2,
				e->iobench, e->how);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int iob_fio_is_jobfile(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && strcasecmp(path + n - 4, ".fio") == 0;
}
