/*
 * example_backend.c - a backend built outside the iobench tree, the way a
 * third party would: only <iobench/plugin.h>, found with
 *   cc -shared $(pkg-config --cflags iobench-plugin) \
 *      -o iob-backend-example.so example_backend.c
 * tests/external/run.sh builds it against an installed iobench and runs it.
 * It is deliberately small: unbuffered read(2)/write(2) after lseek(2), so it
 * is not a copy of any in-tree backend.  For a commented starting point see
 * plugins/backend/template/template.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iobench/plugin.h>

struct example_file {
	int fd;
};

static const struct iob_host *example_host;

static int example_open(const struct iob_open_args *args, void **handle)
{
	int oflags = (args->flags & IOB_OPEN_WRITE) ? O_RDWR : O_RDONLY;
	struct example_file *f;

	if (args->flags & IOB_OPEN_CREATE)
		oflags |= O_CREAT;
	if (args->flags & IOB_OPEN_TRUNC)
		oflags |= O_TRUNC;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = open(args->path, oflags | O_CLOEXEC, (mode_t)args->mode);
	if (f->fd < 0) {
		int rc = -errno;
		example_host->log(IOB_LOG_DEBUG, "example", "open %s failed", args->path);
		free(f);
		return rc;
	}
	*handle = f;
	return 0;
}

static int example_close(void *handle)
{
	struct example_file *f = handle;
	int rc = close(f->fd) < 0 ? -errno : 0;

	free(f);
	return rc;
}

static int64_t example_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct example_file *f = handle;
	size_t done = 0;

	if (lseek(f->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	while (done < len) {
		ssize_t n = read(f->fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int64_t)done;
}

static int64_t example_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct example_file *f = handle;
	ssize_t n;

	if (lseek(f->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	do {
		n = write(f->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : (int64_t)n;
}

static int example_sync(void *handle)
{
	struct example_file *f = handle;

	return fsync(f->fd) < 0 ? -errno : 0;
}

static int example_info(void *handle, struct iob_file_info *info)
{
	struct example_file *f = handle;
	struct stat st;

	if (fstat(f->fd, &st) < 0)
		return -errno;
	info->size = (uint64_t)st.st_size;
	info->mem_align = 1;
	info->io_align = 1;
	return 0;
}

/* .open = example_open ... .info = example_info (plugin.h) */
static const struct iob_backend_ops example_ops = {IOB_BACKEND_OPS_OF(example)};

IOB_BACKEND_PLUGIN(example_host, "example", "out-of-tree example: lseek + read/write",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC, &example_ops);
