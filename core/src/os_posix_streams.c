/*
 * os_posix_streams.c - streams and descriptors (os.h): lines read, terminals,
 * writes in full, pipes and their readers, the standard descriptors, argv,
 * the stop signals.  A room of os_posix.c (its map).
 */
#include "os_posix_int.h"

#include <sys/syscall.h>

long iob_getline(char **line, size_t *cap, FILE *f)
{
	ssize_t n = getline(line, cap, f);
	return n < 0 ? -1 : (long)n;
}

int iob_is_terminal(FILE *f)
{
	return isatty(fileno(f));
}

int iob_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int iob_stream_fd(FILE *f)
{
	return fileno(f);
}

int iob_stream_is_pipe(FILE *f)
{
	struct stat st;
	return fstat(fileno(f), &st) == 0 && S_ISFIFO(st.st_mode);
}

int iob_wake_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}

void iob_wake_pipe_close(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

int iob_stream_reader_gone(FILE *f, int wake_fd, int timeout_ms)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* no event asked for: a pipe's writer gets POLLERR when no reader is left */
	struct pollfd p[2] = {{.fd = fileno(f), .events = 0}, {.fd = wake_fd, .events = POLLIN}};
	int n = poll(p, wake_fd >= 0 ? 2 : 1, timeout_ms);
	if (n <= 0 || !(p[0].revents & POLLERR))
		return 0;
	kill(getpid(), SIGPIPE);
	return 1;
}

int iob_std_fds_reopen(void)
{
	int mask = 0;
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* the lowest free descriptor is fd: the ones below are open */
		int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got < 0)
			return -errno;
		if (got != fd) {
			close(got);
			return -EBADF;
		}
		mask |= 1 << fd;
	}
	return mask;
}

FILE *iob_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

void iob_utf8_args(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int sig)
{
	int saved = errno; /* the interrupted code's errno stays its own */
	if (stop_flag && !*stop_flag)
		*stop_flag = sig;
	/* a second signal ends the process the default way; SIGPIPE stays
	 * caught, so every later write to the closed pipe fails with EPIPE */
	if (sig != SIGPIPE)
		signal(sig, SIG_DFL);
	errno = saved;
}

void iob_install_stop_handlers(volatile sig_atomic_t *flag)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	stop_flag = flag;
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	/* blocked by whoever started us, they would never stop the run: a
	 * blocked SIGPIPE leaves a write to a gone reader failing with EPIPE
	 * while the read goes on */
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- the thread's I/O priority ------------------------------------------ */

#if defined(__linux__) && defined(SYS_ioprio_set) && defined(SYS_ioprio_get)
#define IOPRIO_WHO_THREAD 1 /* IOPRIO_WHO_PROCESS with the thread's id: that thread alone */
int iob_thread_ioprio_set(unsigned value)
{
	return syscall(SYS_ioprio_set, IOPRIO_WHO_THREAD, (int)syscall(SYS_gettid), (int)value) == 0 ? 0 : -errno;
}

int iob_thread_ioprio_get(void)
{
	long v = syscall(SYS_ioprio_get, IOPRIO_WHO_THREAD, (int)syscall(SYS_gettid));
	return v < 0 ? -errno : (int)v;
}
#else
int iob_thread_ioprio_set(unsigned value)
{
	(void)value;
	return -ENOTSUP;
}

int iob_thread_ioprio_get(void)
{
	return -ENOTSUP;
}
#endif
