/*
 * verify.c - verify headers and their checksums (iobench/verify.h).  The
 * checksums come from libraries Debian keeps, none written here: nettle
 * (md5, sha256), libxxhash (xxhash: XXH64), ISA-L (crc32c: crc32_iscsi;
 * crc64: crc64_jones_refl, the polynomial fio's crc64 uses).  A kind whose
 * library this build lacks is refused by the job check (job.c).
 *
 * Where the build found a library as a shared object, the binaries do not
 * link it: it is loaded by its soname (IOB_<LIB>_SONAME, from CMake) with
 * iob_dl_open when a kind first needs it (a job's check, or a checksum), as
 * the dynamic linker would have loaded it at every start (nettle alone cost
 * 380,000 instructions of the dynamic loader in every run, docs/performance.md).
 * A library that cannot be loaded then makes its kinds unavailable: refused
 * by name, as in a build without it.
 */
#include "iobench/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IOB_HAVE_NETTLE
#include <nettle/md5.h>
#include <nettle/sha2.h>
#endif
#ifdef IOB_HAVE_XXHASH
#define XXH_STATIC_LINKING_ONLY /* XXH64_state_t on the stack */
#include <xxhash.h>
#endif
#ifdef IOB_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/crc64.h>
#endif
#if defined(IOB_NETTLE_SONAME) || defined(IOB_XXHASH_SONAME) || defined(IOB_ISAL_SONAME)
#define IOB_SUMS_LOADED 1
#endif
#include "iobench/os.h"

/* The checksum functions: the library's own where it is linked, else
 * looked up in it when it is first needed (sums_get). */
#define SUM_NAME_(f) #f
#define SUM_NAME(f) SUM_NAME_(f) /* the symbol a header's macro names (nettle_md5_init) */
static struct {
	int nettle, xxhash, isal; /* usable */
#ifdef IOB_HAVE_NETTLE
	__typeof__(&md5_init) md5_init;
	__typeof__(&md5_update) md5_update;
	__typeof__(&md5_digest) md5_digest;
	__typeof__(&sha256_init) sha256_init;
	__typeof__(&sha256_update) sha256_update;
	__typeof__(&sha256_digest) sha256_digest;
#endif
#ifdef IOB_HAVE_XXHASH
	__typeof__(&XXH64_reset) xxh64_reset;
	__typeof__(&XXH64_update) xxh64_update;
	__typeof__(&XXH64_digest) xxh64_digest;
#endif
#ifdef IOB_HAVE_ISAL
	__typeof__(&crc32_iscsi) crc32_iscsi;
	__typeof__(&crc64_jones_refl) crc64_jones_refl;
#endif
} sums;

#ifdef IOB_SUMS_LOADED
/* Look name up in h into *fn (a function pointer); 0 when it is missing. */
static int sum_sym(void *h, const char *name, void *fn, size_t fnlen)
{
	void *sym = h ? iob_dl_sym(h, name) : NULL;
	if (sym)
		memcpy(fn, &sym, fnlen);
	return sym != NULL;
}
#define SUM_SYM(h, field, f) sum_sym(h, SUM_NAME(f), &sums.field, sizeof sums.field)
#endif

static void load_nettle(void)
{
#ifdef IOB_HAVE_NETTLE
#ifdef IOB_NETTLE_SONAME
	void *h = iob_dl_open(IOB_NETTLE_SONAME, NULL, 0);
	sums.nettle = SUM_SYM(h, md5_init, md5_init) && SUM_SYM(h, md5_update, md5_update) &&
		      SUM_SYM(h, md5_digest, md5_digest) && SUM_SYM(h, sha256_init, sha256_init) &&
		      SUM_SYM(h, sha256_update, sha256_update) && SUM_SYM(h, sha256_digest, sha256_digest);
#else
	sums.md5_init = md5_init;
	sums.md5_update = md5_update;
	sums.md5_digest = md5_digest;
	sums.sha256_init = sha256_init;
	sums.sha256_update = sha256_update;
	sums.sha256_digest = sha256_digest;
	sums.nettle = 1;
#endif
#endif
}

static void load_xxhash(void)
{
#ifdef IOB_HAVE_XXHASH
#ifdef IOB_XXHASH_SONAME
	void *h = iob_dl_open(IOB_XXHASH_SONAME, NULL, 0);
	sums.xxhash = SUM_SYM(h, xxh64_reset, XXH64_reset) && SUM_SYM(h, xxh64_update, XXH64_update) &&
		      SUM_SYM(h, xxh64_digest, XXH64_digest);
#else
	sums.xxh64_reset = XXH64_reset;
	sums.xxh64_update = XXH64_update;
	sums.xxh64_digest = XXH64_digest;
	sums.xxhash = 1;
#endif
#endif
}

static void load_isal(void)
{
#ifdef IOB_HAVE_ISAL
#ifdef IOB_ISAL_SONAME
	void *h = iob_dl_open(IOB_ISAL_SONAME, NULL, 0);
	sums.isal = SUM_SYM(h, crc32_iscsi, crc32_iscsi) && SUM_SYM(h, crc64_jones_refl, crc64_jones_refl);
#else
	sums.crc32_iscsi = crc32_iscsi;
	sums.crc64_jones_refl = crc64_jones_refl;
	sums.isal = 1;
#endif
#endif
}

/* The library of kind k's checksum, loaded once (from any thread: a
 * stream's first block); only that one. */
static void sums_get(enum iob_verify_kind k)
{
	static int nettle, xxhash, isal;
	if (k == IOB_VERIFY_MD5 || k == IOB_VERIFY_SHA256)
		iob_once(&nettle, load_nettle);
	else if (k == IOB_VERIFY_XXHASH)
		iob_once(&xxhash, load_xxhash);
	else if (k == IOB_VERIFY_CRC32C || k == IOB_VERIFY_CRC64)
		iob_once(&isal, load_isal);
}

#define MAGIC "iobV"
#define VERSION 1u
#define SUM_AT 32u
#define SUM_MAX 32u

static const struct {
	const char *name, *library;
	size_t sum_len;
} kinds[] = {
    [IOB_VERIFY_PATTERN] = {"pattern", "", 0}, [IOB_VERIFY_META] = {"meta", "", 0},
    [IOB_VERIFY_CRC32C] = {"crc32c", "ISA-L", 4},  [IOB_VERIFY_CRC64] = {"crc64", "ISA-L", 8},
    [IOB_VERIFY_MD5] = {"md5", "nettle", 16},	   [IOB_VERIFY_SHA256] = {"sha256", "nettle", 32},
    [IOB_VERIFY_XXHASH] = {"xxhash", "libxxhash", 8},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

const char *iob_verify_kind_name(enum iob_verify_kind k)
{
	return (size_t)k < NKINDS ? kinds[k].name : NULL;
}

const char *iob_verify_library(enum iob_verify_kind k)
{
	return (size_t)k < NKINDS ? kinds[k].library : "";
}

int iob_verify_available(enum iob_verify_kind k)
{
	switch (k) {
	case IOB_VERIFY_PATTERN:
	case IOB_VERIFY_META:
		return 1;
	case IOB_VERIFY_CRC32C:
	case IOB_VERIFY_CRC64:
		sums_get(k);
		return sums.isal;
	case IOB_VERIFY_MD5:
	case IOB_VERIFY_SHA256:
		sums_get(k);
		return sums.nettle;
	case IOB_VERIFY_XXHASH:
		sums_get(k);
		return sums.xxhash;
	}
	return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t seed_tag(uint64_t seed)
{
	uint64_t x = seed + 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ (x >> 31));
}

/* The checksum of a block of len bytes: [0, 32) and [64, len). */
static void checksum(enum iob_verify_kind k, const unsigned char *b, size_t len, unsigned char out[SUM_MAX])
{
	const unsigned char *part[2] = {b, b + IOB_VERIFY_HEADER};
	size_t plen[2] = {SUM_AT, len - IOB_VERIFY_HEADER};
	(void)part; /* unused in a build with none of the checksum libraries (Windows) */
	(void)plen;
	memset(out, 0, SUM_MAX);
	sums_get(k);
	switch (k) {
#ifdef IOB_HAVE_ISAL
	case IOB_VERIFY_CRC32C: {
		if (!sums.isal)
			break; /* not loaded: refused by the job check */
		unsigned int c = 0xffffffffu;
		for (int i = 0; i < 2; i++)
			for (size_t at = 0; at < plen[i];) {
				size_t n = plen[i] - at > (1u << 30) ? (1u << 30) : plen[i] - at;
				c = sums.crc32_iscsi((unsigned char *)(uintptr_t)(part[i] + at), (int)n, c);
				at += n;
			}
		put32(out, ~c);
		break;
	}
	case IOB_VERIFY_CRC64: {
		if (!sums.isal)
			break;
		uint64_t c = 0;
		for (int i = 0; i < 2; i++)
			c = sums.crc64_jones_refl(c, part[i], plen[i]);
		put64(out, c);
		break;
	}
#endif
#ifdef IOB_HAVE_NETTLE
	case IOB_VERIFY_MD5: {
		if (!sums.nettle)
			break;
		struct md5_ctx ctx;
		sums.md5_init(&ctx);
		for (int i = 0; i < 2; i++)
			sums.md5_update(&ctx, plen[i], part[i]);
		sums.md5_digest(&ctx, MD5_DIGEST_SIZE, out);
		break;
	}
	case IOB_VERIFY_SHA256: {
		if (!sums.nettle)
			break;
		struct sha256_ctx ctx;
		sums.sha256_init(&ctx);
		for (int i = 0; i < 2; i++)
			sums.sha256_update(&ctx, plen[i], part[i]);
		sums.sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
		break;
	}
#endif
#ifdef IOB_HAVE_XXHASH
	case IOB_VERIFY_XXHASH: {
		if (!sums.xxhash)
			break;
		XXH64_state_t st;
		sums.xxh64_reset(&st, 0);
		for (int i = 0; i < 2; i++)
			sums.xxh64_update(&st, part[i], plen[i]);
		put64(out, sums.xxh64_digest(&st));
		break;
	}
#endif
	default: /* meta, or a kind this build lacks (refused by the job check) */
		break;
	}
}

/* One whole interval written for file offset start. */
static void build(const struct iob_pattern *p, unsigned char *dst, size_t ilen, uint64_t start)
{
	iob_pattern_fill_base(p, dst, ilen, start);
	if (ilen < IOB_VERIFY_HEADER)
		return; /* no room: refused by the job check */
	memcpy(dst, MAGIC, 4);
	dst[4] = (unsigned char)p->verify;
	dst[5] = VERSION;
	dst[6] = dst[7] = 0;
	put32(dst + 8, (uint32_t)ilen);
	put32(dst + 12, seed_tag(p->seed));
	put64(dst + 16, start);
	put64(dst + 24, p->verify_generation);
	checksum(p->verify, dst, ilen, dst + SUM_AT);
}

static void base_part(const struct iob_pattern *p, unsigned char *dst, size_t n, uint64_t off)
{
	iob_pattern_fill_base(p, dst, n, off);
}

void iob_verify_fill(const struct iob_pattern *p, void *vbuf, size_t len, uint64_t off)
{
	unsigned char *buf = vbuf;
	uint64_t ilen = iob_pattern_interval(p);
	if (!ilen) {
		iob_pattern_fill_base(p, buf, len, off);
		return;
	}
	iob_fill_units(p, buf, len, off, ilen, build, base_part);
}

static void hexs(const unsigned char *b, size_t n, char *out, size_t outlen)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 <= outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%02x", b[i]);
}

/* 0 when the header of the whole interval at start holds (and its checksum
 * but for meta); else 1 and the reason in why. */
static int check_one(const struct iob_pattern *p, const unsigned char *b, size_t ilen, uint64_t start, char *why,
		     size_t whylen)
{
	const char *name = kinds[p->verify].name;
	if (memcmp(b, MAGIC, 4) != 0 || b[4] != (unsigned char)p->verify || b[5] != VERSION) {
		char h[20] = "";
		hexs(b, 6, h, sizeof h);
		snprintf(why, whylen, "no %s verify header in the block at offset %llu (found %s)", name,
			 (unsigned long long)start, h);
		return 1;
	}
	if (p->verify != IOB_VERIFY_META) {
		unsigned char sum[SUM_MAX];
		char want[2 * SUM_MAX + 1] = "", got[2 * SUM_MAX + 1] = "";
		checksum(p->verify, b, ilen, sum);
		size_t n = kinds[p->verify].sum_len;
		if (memcmp(sum, b + SUM_AT, n) != 0) {
			hexs(b + SUM_AT, n, want, sizeof want);
			hexs(sum, n, got, sizeof got);
			snprintf(why, whylen, "%s checksum error in the block at offset %llu: its header holds %s, its data gives %s",
				 name, (unsigned long long)start, want, got);
			return 1;
		}
	}
	if (get32(b + 8) != ilen) {
		snprintf(why, whylen, "header error in the block at offset %llu: length %u, expected %zu",
			 (unsigned long long)start, get32(b + 8), ilen);
		return 1;
	}
	if (get64(b + 16) != start) {
		snprintf(why, whylen,
			 "header offset error: the block at offset %llu was written for offset %llu (a block at the wrong "
			 "place)",
			 (unsigned long long)start, (unsigned long long)get64(b + 16));
		return 1;
	}
	if (get64(b + 24) != p->verify_generation) {
		snprintf(why, whylen,
			 "sequence error: the block at offset %llu is of generation %llu, expected %llu (a block left from "
			 "another write)",
			 (unsigned long long)start, (unsigned long long)get64(b + 24),
			 (unsigned long long)p->verify_generation);
		return 1;
	}
	if (get32(b + 12) != seed_tag(p->seed)) {
		snprintf(why, whylen, "header error: the block at offset %llu was written with another seed",
			 (unsigned long long)start);
		return 1;
	}
	return 0;
}

int iob_verify_good(const struct iob_pattern *p, const void *vbuf, size_t len, uint64_t off, char *why, size_t whylen)
{
	const unsigned char *buf = vbuf;
	char spare[8];
	uint64_t ilen = iob_pattern_interval(p);
	if (!why || !whylen) {
		why = spare;
		whylen = sizeof spare;
	}
	if (!ilen || ilen < IOB_VERIFY_HEADER)
		return 0;
	int good = p->verify != IOB_VERIFY_META;
	for (uint64_t pos = off; pos < off + len;) {
		uint64_t start = pos - pos % ilen, end = start + ilen;
		if (start < off || end > off + len) { /* a part: only the bytes can tell */
			good = 0;
			pos = end < off + len ? end : off + len;
			continue;
		}
		if (check_one(p, buf + (start - off), (size_t)ilen, start, why, whylen))
			return 0;
		pos = end;
	}
	return good;
}
