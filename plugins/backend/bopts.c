/*
 * bopts.c - backend option text parsing (bopts.h).
 */
#include "bopts.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

int bopts_each(const char *text, const struct iob_host *host, const char *who,
	       int (*fn)(void *ctx, const char *key, const char *val), void *ctx)
{
	char buf[BOPTS_MAX_TEXT];
	size_t len;
	char *p;

	if (!text || !*text)
		return 0;
	len = strlen(text);
	if (len >= sizeof(buf)) {
		host->log(IOB_LOG_ERROR, who, "backend options are %zu bytes long; at most %zu are accepted",
			  len, sizeof(buf) - 1);
		return -EINVAL;
	}
	memcpy(buf, text, len + 1);
	p = buf;
	for (;;) {
		char *comma = strchr(p, ',');
		char *eq;
		int rc;

		if (comma)
			*comma = '\0';
		eq = strchr(p, '=');
		if (!*p) {
			host->log(IOB_LOG_ERROR, who, "empty item in backend options \"%s\": write key=value,...",
				  text);
			return -EINVAL;
		}
		if (!eq || eq == p) {
			host->log(IOB_LOG_ERROR, who, "backend option '%s' is not key=value", p);
			return -EINVAL;
		}
		*eq = '\0';
		rc = fn(ctx, p, eq + 1);
		if (rc < 0)
			return rc;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int bopts_unknown(const struct iob_host *host, const char *who, const char *key, const char *known)
{
	if (known)
		host->log(IOB_LOG_ERROR, who, "unknown backend option '%s' (%s takes: %s)", key, who, known);
	else
		host->log(IOB_LOG_ERROR, who, "unknown backend option '%s' (%s takes no options)", key, who);
	return -EINVAL;
}

int bopts_bool(const struct iob_host *host, const char *who, const char *key, const char *val, int *out)
{
	if (strcmp(val, "0") == 0 || strcmp(val, "1") == 0) {
		*out = val[0] == '1';
		return 0;
	}
	host->log(IOB_LOG_ERROR, who, "backend option %s=%s: the value must be 0 or 1", key, val);
	return -EINVAL;
}

int bopts_count(const struct iob_host *host, const char *who, const char *key, const char *val, unsigned max,
		unsigned *out)
{
	unsigned long v = 0;
	const char *c = val;

	for (; *c >= '0' && *c <= '9' && v <= max; c++)
		v = v * 10 + (unsigned long)(*c - '0');
	if (c == val || *c || v > max) {
		host->log(IOB_LOG_ERROR, who, "backend option %s=%s: the value must be a whole number from 0 to %u",
			  key, val, max);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

int bopts_set(const struct iob_host *host, const char *who, const struct bopts_field *t, size_t n, void *ctx,
	      const char *key, const char *val, const char *known)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(key, t[i].key) != 0)
			continue;
		void *at = (char *)ctx + t[i].at;
		if (t[i].count)
			return bopts_count(host, who, key, val, t[i].max, at);
		return bopts_bool(host, who, key, val, at);
	}
	return bopts_unknown(host, who, key, known);
}

const char *bopts_of(const struct iob_open_args *args)
{
	size_t need = offsetof(struct iob_open_args, options) + sizeof(args->options);

	return args->struct_size >= need ? args->options : NULL;
}

int bopts_control(void *handle, int op, void *arg, const struct iob_host *host, const char *who,
		  int (*fn)(void *ctx, const char *key, const char *val), void *ctx, const int *direct)
{
	if (handle || !arg)
		return -ENOTSUP;
	if (op == IOB_CTL_CHECK_OPTIONS)
		return bopts_each(arg, host, who, fn, ctx);
	if (op == IOB_CTL_OPTION_CAPS && direct) {
		struct iob_option_caps *q = arg;
		int rc = bopts_each(q->options, host, who, fn, ctx);
		if (rc == 0 && *direct)
			q->caps |= IOB_CAP_DIRECT | IOB_CAP_ALIGNED;
		return rc;
	}
	return -ENOTSUP;
}
