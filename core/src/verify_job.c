/*
 * verify_job.c - the checks of a job's verify keys (iobench/job.h,
 * iob_job_check_verify; the headers themselves: verify.c).
 */
#include <errno.h>
#include <stdio.h>

#include "iobench/job.h"
#include "iobench/verify.h"

int iob_job_check_verify(const struct iob_job *job, char *err, size_t errlen)
{
	const struct iob_pattern *p = &job->pattern;
	const char *n = job->name, *kind = iob_verify_kind_name(p->verify);
	if (!kind) {
		snprintf(err, errlen, "[%s] verify: unknown kind %d", n, (int)p->verify);
		return -EINVAL;
	}
	const uint32_t writes = IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED);
	if (job->load.verify_backlog && (!(job->phases & writes) || job->workload == 1)) {
		snprintf(err, errlen, "[%s] verify_backlog %llu reads back the blocks a write or mixed phase wrote: give "
				      "phases with write or mixed, or leave it out",
			 n, (unsigned long long)job->load.verify_backlog);
		return -EINVAL;
	}
	if (job->load.verify_backlog > IOB_VERIFY_BACKLOG_MAX || job->load.verify_backlog_batch > IOB_VERIFY_BACKLOG_MAX) {
		snprintf(err, errlen, "[%s] verify_backlog%s %llu is above %u: each stream keeps that many blocks to read back",
			 n, job->load.verify_backlog > IOB_VERIFY_BACKLOG_MAX ? "" : "_batch",
			 (unsigned long long)(job->load.verify_backlog > IOB_VERIFY_BACKLOG_MAX ? job->load.verify_backlog
												  : job->load.verify_backlog_batch),
			 IOB_VERIFY_BACKLOG_MAX);
		return -EINVAL;
	}
	if (job->load.verify_backlog && job->layout == IOB_LAYOUT_TREE) {
		snprintf(err, errlen, "[%s] verify_backlog reads back through the one file a stream writes: layout = tree "
				      "cannot be used with it", n);
		return -EINVAL;
	}
	if (job->load.verify_backlog && job->reopen) {
		snprintf(err, errlen, "[%s] verify_backlog reads back between writes through the open file: reopen cannot be used with it", n);
		return -EINVAL;
	}
	if (p->compress_pct && (!p->compress_chunk || p->compress_chunk > job->block_size)) {
		snprintf(err, errlen, "[%s] compress_chunk %llu is not between 1 and block_size %llu", n,
			 (unsigned long long)p->compress_chunk, (unsigned long long)job->block_size);
		return -EINVAL;
	}
	if ((p->compress_pct || p->dedupe_pct) && job->fill_once) {
		snprintf(err, errlen, "[%s] fill_once writes one buffer everywhere: compress_percentage and "
				      "dedupe_percentage need each block's own",
			 n);
		return -EINVAL;
	}
	if (p->verify == IOB_VERIFY_PATTERN) {
		if (p->verify_interval) {
			snprintf(err, errlen, "[%s] verify_interval needs verify headers (verify = meta, crc32c, ...)", n);
			return -EINVAL;
		}
		return 0;
	}
	if (!iob_verify_available(p->verify)) {
		snprintf(err, errlen, "[%s] verify = %s: this build of iobench has no %s (%s was not found when it was built)",
			 n, kind, kind, iob_verify_library(p->verify));
		return -ENOTSUP;
	}
	if (job->fill_once) {
		snprintf(err, errlen, "[%s] fill_once writes one buffer everywhere, and verify = %s needs each block's own header",
			 n, kind);
		return -EINVAL;
	}
	uint64_t bs = job->block_size, iv = p->verify_interval ? p->verify_interval : bs;
	if (iv < IOB_VERIFY_HEADER) {
		snprintf(err, errlen, "[%s] verify = %s: %s %llu is below the %u-byte header", n, kind,
			 p->verify_interval ? "verify_interval" : "block_size", (unsigned long long)iv, IOB_VERIFY_HEADER);
		return -EINVAL;
	}
	if (bs % iv) {
		snprintf(err, errlen, "[%s] verify_interval %llu does not divide block_size %llu", n,
			 (unsigned long long)iv, (unsigned long long)bs);
		return -EINVAL;
	}
	if (job->access == IOB_ACCESS_RAND && job->offset_align && job->offset_align % iv) {
		snprintf(err, errlen, "[%s] offset_align %llu is not a multiple of the verify interval %llu", n,
			 (unsigned long long)job->offset_align, (unsigned long long)iv);
		return -EINVAL;
	}
	return 0;
}
