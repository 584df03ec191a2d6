/*
 * iobench/verify.h - verify headers (docs/fio.md, "Verify"): with a
 * checksum kind, every `interval` bytes of the file (the block size unless
 * verify_interval says otherwise) start with a 64-byte header, and the rest
 * is the job's pattern.  The header, little-endian:
 *
 *    0  magic "iobV"              4  kind, version 1, 0, 0
 *    8  u32 interval length       12 u32 tag of the pattern's seed
 *   16  u64 the file offset the block was written for
 *   24  u64 the generation (verify_generation)
 *   32  the checksum, 32 bytes, zero-padded (md5 16, sha256 32, crc32c 4,
 *       crc64 8, xxhash 8; meta: none) of bytes [0, 32) and [64, interval)
 *
 * so a block written at another place (its offset), at another time (its
 * generation), by another job (its seed) or changed (its checksum) is
 * caught, each with its own reason.  Like the patterns, the whole content is
 * a pure function of the offset: a later run verifies what an earlier one
 * wrote.  Not fio's on-disk format.
 */
#ifndef IOBENCH_VERIFY_H
#define IOBENCH_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "iobench/pattern.h"

#define IOB_VERIFY_HEADER 64u
/* verify_backlog, verify_backlog_batch: at most this many blocks a stream keeps to read back */
#define IOB_VERIFY_BACKLOG_MAX (1u << 24)

/* "crc32c" ... ; NULL for an unknown kind. */
const char *iob_verify_kind_name(enum iob_verify_kind k);
/* 1 when this build has the kind's checksum (its library was found). */
int iob_verify_available(enum iob_verify_kind k);
/* The library a kind's checksum comes from ("nettle", "libxxhash", "ISA-L"). */
const char *iob_verify_library(enum iob_verify_kind k);

/* The pattern's bytes at [off, off + len) with a header stamped at the start
 * of every interval (p->verify is not IOB_VERIFY_PATTERN). */
void iob_verify_fill(const struct iob_pattern *p, void *buf, size_t len, uint64_t off);

/* 1 when [off, off + len) is whole intervals whose headers and checksums
 * hold (nothing more to compare); 0 otherwise, with the reason of the first
 * bad header or checksum in why (left empty when only the bytes can tell:
 * a part of an interval, or meta). */
int iob_verify_good(const struct iob_pattern *p, const void *buf, size_t len, uint64_t off, char *why, size_t whylen);

#endif
