/*
 * bopts.h - backend options ("k=v,k2=v2", struct iob_open_args.options and
 * IOB_CTL_CHECK_OPTIONS), parsed the same way by every in-tree backend and
 * the test-only fault backend; compiled into each, nothing is exported.
 *
 * Syntax: items separated by ','; each item is key=value with a non-empty
 * key; the value may be empty and runs to the next ','.  Spaces are part of
 * keys and values (the profile parser has already trimmed the text).  An
 * empty text has no items.  Every refusal logs one line through the host and
 * returns -EINVAL.
 */
#ifndef IOB_BACKEND_BOPTS_H
#define IOB_BACKEND_BOPTS_H

#include <stddef.h>

#include "iobench/plugin.h"

#define BOPTS_MAX_TEXT 1024 /* longer option texts are refused */

/* Call fn(ctx, key, value) for each item of text (NULL: none), in order.
 * Returns 0, the first negative value fn returns, or -EINVAL (logged as
 * plugin `who`) for a malformed text. */
int bopts_each(const char *text, const struct iob_host *host, const char *who,
	       int (*fn)(void *ctx, const char *key, const char *val), void *ctx);
/* Log "unknown backend option 'KEY' for WHO (it takes: KNOWN)" and return
 * -EINVAL.  known is a comma-separated list, or NULL for a backend that takes
 * no options. */
int bopts_unknown(const struct iob_host *host, const char *who, const char *key, const char *known);
/* "0" or "1" into *out; otherwise log naming key and value and return -EINVAL. */
int bopts_bool(const struct iob_host *host, const char *who, const char *key, const char *val, int *out);
/* A decimal count in [0, max] into *out; otherwise log naming key, value and
 * the range, and return -EINVAL. */
int bopts_count(const struct iob_host *host, const char *who, const char *key, const char *val, unsigned max,
		unsigned *out);
/* A backend's options as a table: each key, where its value goes in the
 * backend's options struct, and its kind (an int 0|1, or an unsigned count
 * from 0 to max):
 *   static const struct bopts_field my_fields[] = {BOPTS_BOOL(struct my_opts, direct),
 *                                                  BOPTS_COUNT(struct my_opts, batch, 4096)};  */
struct bopts_field {
	const char *key;
	size_t at;    /* offsetof the member */
	int count;    /* 0: bopts_bool into an int; 1: bopts_count into an unsigned */
	unsigned max; /* a count's largest value */
};
#define BOPTS_BOOL(type, m) {#m, offsetof(type, m), 0, 0}
#define BOPTS_COUNT(type, m, max_) {#m, offsetof(type, m), 1, (max_)}
/* key=val into the options struct ctx through the n fields of t (as
 * bopts_bool or bopts_count); a key not in t is bopts_unknown with known. */
int bopts_set(const struct iob_host *host, const char *who, const struct bopts_field *t, size_t n, void *ctx,
	      const char *key, const char *val, const char *known);
/* A backend's control() for its options, without a handle:
 * IOB_CTL_CHECK_OPTIONS parses the text arg into ctx through fn;
 * IOB_CTL_OPTION_CAPS (only when direct is not NULL) parses the query's
 * options the same way and adds IOB_CAP_DIRECT | IOB_CAP_ALIGNED when they
 * set *direct (a field of ctx).  -ENOTSUP for anything else. */
int bopts_control(void *handle, int op, void *arg, const struct iob_host *host, const char *who,
		  int (*fn)(void *ctx, const char *key, const char *val), void *ctx, const int *direct);
/* The members of a backend's ops table for functions named after one
 * prefix: p_open, p_close, p_read_at, p_write_at, p_sync, p_info (plugin.h's
 * IOB_BACKEND_OPS_OF), p_truncate and p_control:
 *   static const struct iob_backend_ops my_ops = {BOPTS_FILE_OPS(my)};
 * BOPTS_QUEUED_OPS adds a queued backend's p_submit and p_reap. */
#define BOPTS_FILE_OPS(p) IOB_BACKEND_OPS_OF(p), .truncate = p##_truncate, .control = p##_control
#define BOPTS_QUEUED_OPS(p) BOPTS_FILE_OPS(p), .submit = p##_submit, .reap = p##_reap
/* The end of an in-tree backend p that declares its options in the static
 * array p_options: its ops table p_ops, of the members ops
 * (BOPTS_FILE_OPS(p) or BOPTS_QUEUED_OPS(p)), and its registration
 * (IOB_BACKEND_PLUGIN_OPTIONS) with its host pointer p_host:
 *   BOPTS_PLUGIN(my, "my", "one line", IOB_CAP_READ | ..., BOPTS_FILE_OPS(my));  */
#define BOPTS_PLUGIN(p, name, summary, caps, ops)                                                           \
	static const struct iob_backend_ops p##_ops = {ops};                                                \
	IOB_BACKEND_PLUGIN_OPTIONS(p##_host, name, summary, caps, &p##_ops, p##_options)
/* args->options when the core's struct is new enough to carry it, else NULL. */
const char *bopts_of(const struct iob_open_args *args);
#endif
