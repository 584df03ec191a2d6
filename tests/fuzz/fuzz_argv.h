/*
 * fuzz_argv.h - shared by the harnesses of the legacy argument parsers
 * (fuzz_*_args.c): the fuzz input as an argv vector, and the checks every
 * parser must pass.
 *
 * The input is split on NUL bytes into argv[1..]; argv[0] is the tool's
 * name.  The parser runs with stdout and stderr swapped for a memory stream,
 * so anything it prints is caught: a parser returns its refusal, it never
 * prints or exits.  A refusal must say why, on one line.
 */
#ifndef FUZZ_ARGV_H
#define FUZZ_ARGV_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_INPUT 16384

struct fuzz_argv {
	int argc;
	char **argv; /* argc + 1 entries; the parser may permute them */
	char *text;  /* the strings, one allocation */
};

/* 0, or -1 when the input is too large or memory ran out (skip it). */
static inline int fuzz_argv_make(struct fuzz_argv *a, const char *prog, const uint8_t *data, size_t size)
{
	size_t n = 1;
	memset(a, 0, sizeof *a);
	if (size > FUZZ_MAX_INPUT)
		return -1;
	for (size_t i = 0; i < size; i++)
		n += data[i] == 0;
	a->text = malloc(size + 1);
	a->argv = calloc(n + 2, sizeof *a->argv);
	if (!a->text || !a->argv) {
		free(a->text);
		free(a->argv);
		return -1;
	}
	memcpy(a->text, data, size);
	a->text[size] = '\0';
	a->argv[a->argc++] = (char *)prog;
	if (size) {
		char *p = a->text, *end = a->text + size;
		for (;;) {
			a->argv[a->argc++] = p;
			p += strlen(p);
			if (p >= end)
				break;
			p++;
		}
	}
	a->argv[a->argc] = NULL;
	return 0;
}

static inline void fuzz_argv_free(struct fuzz_argv *a)
{
	free(a->text);
	free(a->argv);
}

/* Swap stdout and stderr for one memory stream around a parser call. */
struct fuzz_capture {
	FILE *saved_out, *saved_err, *mem;
	char *buf;
	size_t len;
};

static inline void fuzz_capture_begin(struct fuzz_capture *c)
{
	memset(c, 0, sizeof *c);
	c->mem = open_memstream(&c->buf, &c->len);
	if (!c->mem)
		abort();
	c->saved_out = stdout;
	c->saved_err = stderr;
	stdout = c->mem;
	stderr = c->mem;
}

/* Restore the streams; abort when the parser printed anything. */
static inline void fuzz_capture_end(struct fuzz_capture *c)
{
	stdout = c->saved_out;
	stderr = c->saved_err;
	fclose(c->mem);
	if (c->len) {
		fprintf(stderr, "the parser printed: %.*s\n", (int)c->len, c->buf);
		abort();
	}
	free(c->buf);
}

/* A refusal says why, on one line. */
static inline void fuzz_check_refusal(const char *err)
{
	if (!err[0] || strpbrk(err, "\n\r\v\f")) {
		fprintf(stderr, "bad refusal: \"%s\"\n", err);
		abort();
	}
}

/* The whole harness of a parser with nothing more to run: the fuzzer's
 * entry, which parses the input as prog's argv into a T with
 * parse(argc, argv, T *, err, errlen) while catching its output; a refusal
 * must return refused and say why on one line, and what it accepts must not
 * be bad(const T *). */
#define FUZZ_PARSER_ENTRY(prog, T, parse, refused, bad)                                \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                  \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                   \
	{                                                                              \
		struct fuzz_argv a;                                                    \
		struct fuzz_capture cap;                                               \
		T *o = malloc(sizeof *o);                                              \
		char err[2048] = "";                                                   \
		if (!o || fuzz_argv_make(&a, prog, data, size) != 0) {                 \
			free(o);                                                       \
			return 0;                                                      \
		}                                                                      \
		fuzz_capture_begin(&cap);                                              \
		int rc = parse(a.argc, a.argv, o, err, sizeof err);                    \
		fuzz_capture_end(&cap);                                                \
		if (rc != 0) {                                                         \
			if (rc != (refused))                                           \
				abort();                                               \
			fuzz_check_refusal(err);                                       \
		} else if (bad(o)) {                                                   \
			abort();                                                       \
		}                                                                      \
		fuzz_argv_free(&a);                                                    \
		free(o);                                                               \
		return 0;                                                              \
	}

#endif
