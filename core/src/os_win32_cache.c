/*
 * os_win32_cache.c - the page cache (os.h).  A room of os_win32.c (its
 * map); the twin of os_posix_cache.c.
 */
#include "os_win32_int.h"

/* ---- the page cache: Windows has no residency probe nor a drop ---- */

int iob_cache_residency(const char *path, uint64_t *resident_pages, uint64_t *total_pages)
{
	return iob_cache_residency_range(path, 0, 0, resident_pages, total_pages);
}

int iob_cache_unwritten(const char *path, uint64_t *bytes)
{
	(void)path;
	*bytes = 0;
	return -ENOTSUP;
}

int iob_cache_residency_range(const char *path, uint64_t off, uint64_t len, uint64_t *resident_pages,
			      uint64_t *total_pages)
{
	(void)path;
	(void)off;
	(void)len;
	*resident_pages = *total_pages = 0;
	return -ENOTSUP;
}

int iob_cache_evict(const char *path)
{
	(void)path;
	return -ENOTSUP;
}

int iob_cache_drop_range(const char *path, uint64_t off, uint64_t len)
{
	(void)path;
	(void)off;
	(void)len;
	return -ENOTSUP;
}

void iob_sync_all(void)
{
	/* flushing a whole volume needs administrator rights: nothing here */
}

int iob_drop_caches(void)
{
	return -ENOTSUP;
}
