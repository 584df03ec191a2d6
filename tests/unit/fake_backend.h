/*
 * fake_backend.h - what the engine's unit tests (test_engine_*.c,
 * test_streams_outer.c, test_shape.c) share about their fake backends: the file's info,
 * the backend's descriptor, and a phase spec over the fake files.  Define
 * FILE_SIZE (the fake file's size) before including it.
 */
#ifndef IOBTEST_FAKE_BACKEND_H
#define IOBTEST_FAKE_BACKEND_H

#include <string.h>

#include "iobench/engine.h"

/* The fake file: FILE_SIZE bytes, a regular file, no alignment asked. */
static inline int fake_file_info(void *handle, struct iob_file_info *info)
{
	(void)handle;
	info->size = FILE_SIZE;
	info->mem_align = 1;
	info->io_align = 1;
	info->file_type = IOB_FILE_REGULAR;
	return 0;
}

/* A close with nothing to release. */
static inline int fake_close_nothing(void *handle)
{
	(void)handle;
	return 0;
}

/* b emptied, then a backend named name with caps, fake_file_info and
 * fake_close_nothing: the caller sets the calls it fakes. */
static inline void fake_backend_init(struct iob_loaded *b, const char *name, uint32_t caps)
{
	memset(b, 0, sizeof *b);
	b->desc.kind = IOB_PLUGIN_BACKEND;
	b->desc.caps = caps;
	b->desc.name = name;
	b->backend.info = fake_file_info;
	b->backend.close = fake_close_nothing;
}

/* A spec over the nfiles files through b, blocks of bs, the whole fake file,
 * random map and seed 42, symbolic links followed: the caller changes what
 * it tests. */
static inline struct iob_phase_spec fake_spec(struct iob_loaded *b, const char *const *files, size_t nfiles,
					      enum iob_phase phase, enum iob_access access, uint32_t bs)
{
	struct iob_phase_spec s = {
	    .backend = b,
	    .files = files,
	    .nfiles = nfiles,
	    .phase = phase,
	    .access = access,
	    .block_size = bs,
	    .file_size = FILE_SIZE,
	    .random_map = 1,
	    .seed = 42,
	    .follow_symlinks = 1,
	};
	return s;
}

#endif
