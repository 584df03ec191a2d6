/*
 * iobench/pattern.h - data patterns: what a write phase puts on disk and
 * what a verify phase expects back.  Every pattern is a pure function of the
 * byte offset in the file, so any block can be regenerated on its own and a
 * later run (iotest -er) can verify what an earlier one wrote.
 *
 *   zero      0x00 everywhere                         label 0x00
 *   ones      0xff everywhere                         label 0xff
 *   text      printable ASCII lines of 64 bytes, each  label 0x45
 *             starting with 'E' and ending in '\n'
 *   random    each 4 KiB unit a slice of a random table  label 0x30
 *             XORed with a word, both keyed by (seed,
 *             offset / 4096): reproducible from the seed
 *   byte      one byte value everywhere (=c, /hh)      label: the byte
 *   hex       a string of 1 to 32 bytes (hex:aa555aa5)   label: its first byte
 *             repeated from offset 0 on
 * Any of them can be complemented (every bit inverted); the label is then
 * the complement of the base label (iotest's pattern 4).
 */
#ifndef IOBENCH_PATTERN_H
#define IOBENCH_PATTERN_H

#include <stddef.h>
#include <stdint.h>

enum iob_pattern_kind {
	IOB_PAT_ZERO = 0,
	IOB_PAT_ONES,
	IOB_PAT_TEXT,
	IOB_PAT_RANDOM,
	IOB_PAT_BYTE,
	IOB_PAT_HEX,
};

#define IOB_PAT_HEX_MAX 32

/* Verify headers (verify.h): none, or a header in every `verify_interval`
 * bytes of the file with the block's offset, length, generation and
 * (but for meta) a checksum of the block. */
enum iob_verify_kind {
	IOB_VERIFY_PATTERN = 0, /* no header: the bytes are compared with the pattern */
	IOB_VERIFY_META,
	IOB_VERIFY_CRC32C,
	IOB_VERIFY_CRC64,
	IOB_VERIFY_MD5,
	IOB_VERIFY_SHA256,
	IOB_VERIFY_XXHASH,
};

struct iob_pattern {
	enum iob_pattern_kind kind;
	uint8_t byte;   /* IOB_PAT_BYTE only */
	int complement; /* invert every bit */
	uint64_t seed;  /* IOB_PAT_RANDOM only */
	uint8_t hex[IOB_PAT_HEX_MAX]; /* IOB_PAT_HEX: the string, nhex bytes */
	uint32_t nhex;
	/* verify headers (job keys verify, verify_interval, verify_generation;
	 * kept when the pattern key is set again) */
	enum iob_verify_kind verify;
	uint64_t verify_interval;   /* bytes a header covers; 0 = the block size */
	uint64_t verify_generation; /* written in every header, expected back */
	uint64_t block_size;        /* the phase's (what an interval of 0 means); set by the runner */
	/* data content (fill.c; job keys compress_percentage, compress_chunk,
	 * dedupe_percentage): each block_size block */
	uint32_t compress_pct;      /* 0-100: this share of each chunk is compressible */
	uint64_t compress_chunk;    /* bytes; 0 = 512 */
	uint32_t dedupe_pct;        /* 0-100: this share of the blocks repeat another block */
	/* dedupe_mode, dedupe_working_set, dedupe_global (fill.c) */
	int dedupe_mode;            /* IOB_DEDUPE_REPEAT: block 0; IOB_DEDUPE_WORKING_SET: one of the first unique blocks */
	uint32_t dedupe_ws_pct;     /* working_set: the working set, percent of the file's blocks (1-100; 0: 5) */
	int dedupe_global;          /* working_set: the working set is shared by every job with dedupe_global */
	/* set by the runner as each phase starts (iob_fill_bind), never by a key */
	uint32_t dedupe_member;     /* working_set: whose unique blocks these are (1 + the job's place) */
	uint32_t dedupe_members;    /* dedupe_global: the jobs sharing the working set (members 1..n); 0: own only */
	uint64_t dedupe_blocks;     /* working_set: the file's blocks (size / block_size) */
};

enum { IOB_DEDUPE_REPEAT = 0, IOB_DEDUPE_WORKING_SET = 1 };

/* The pattern's label byte as iotest prints it (0x45 for text...). */
uint8_t iob_pattern_label(const struct iob_pattern *p);
/* Nonzero when the content does not depend on the offset (fill once). */
int iob_pattern_is_constant(const struct iob_pattern *p);
/* Bytes after which the pattern's content repeats whatever the offset (text,
 * hex of several bytes), or 0: the content at off is the content at
 * off % period. */
size_t iob_pattern_period(const struct iob_pattern *p);
/* The interval a verify header covers (verify_interval, else block_size),
 * 0 without headers. */
uint64_t iob_pattern_interval(const struct iob_pattern *p);
/* The pattern alone, without verify headers (with the data content keys). */
void iob_pattern_fill_base(const struct iob_pattern *p, void *buf, size_t len, uint64_t off);
/* The pattern alone, without the content keys either. */
void iob_pattern_fill_raw(const struct iob_pattern *p, void *buf, size_t len, uint64_t off);
/* Random bytes of the seed at [off, off + len) (the random pattern's). */
void iob_pattern_fill_random(uint64_t seed, void *buf, size_t len, uint64_t off);
/* fill.c: [off, off + len) in units of `unit` bytes at multiples of unit:
 * whole(p, dst, unit, start) builds one whole unit; a unit the range only
 * partly covers is built aside and its part copied (part() fills it
 * directly when no memory is left for the aside). */
typedef void (*iob_unit_fill_fn)(const struct iob_pattern *p, unsigned char *dst, size_t n, uint64_t start);
void iob_fill_units(const struct iob_pattern *p, void *buf, size_t len, uint64_t off, uint64_t unit,
		    iob_unit_fill_fn whole, iob_unit_fill_fn part);
/* fill.c: the content keys' fill (compress_pct or dedupe_pct set). */
void iob_fill_shaped(const struct iob_pattern *p, void *buf, size_t len, uint64_t off);
/* fill.c: what a working set needs to know of the run: the file's size and
 * block size, the job's place among the jobs sharing the working set
 * (dedupe_global: 0 to members - 1, else the job's place in the suite) and
 * their number (0 without dedupe_global).  Nothing without working_set. */
void iob_fill_bind(struct iob_pattern *p, uint64_t file_size, uint64_t bs, uint32_t place, uint32_t members);
/* Fill buf with the bytes that belong at file offset off. */
void iob_pattern_fill(const struct iob_pattern *p, void *buf, size_t len, uint64_t off);
/* Compare buf (read from offset off) with the pattern.  Returns the number of
 * mismatching bytes; on the first, stores its index in *first and the
 * expected and found bytes.  `scratch` must hold len bytes. */
size_t iob_pattern_check(const struct iob_pattern *p, const void *buf, size_t len, uint64_t off,
			 void *scratch, size_t *first, uint8_t *expected, uint8_t *found);
/* The same, and with verify headers the reason of the first bad block in
 * why ("checksum", "header offset ...", "generation ..."); why may be NULL. */
size_t iob_pattern_check_why(const struct iob_pattern *p, const void *buf, size_t len, uint64_t off, void *scratch,
			     size_t *first, uint8_t *expected, uint8_t *found, char *why, size_t whylen);
/* Parse a pattern name for profiles: zero, ones, text, random, byte:0xNN,
 * char:C, hex:HH..., with an optional "~" prefix for the complement. */
int iob_pattern_parse(const char *text, struct iob_pattern *out, char *err, size_t errlen);
/* Inverse of iob_pattern_parse (seed not included); at most this long. */
#define IOB_PATTERN_NAME_MAX 80
void iob_pattern_name(const struct iob_pattern *p, char *buf, size_t len);

#endif
