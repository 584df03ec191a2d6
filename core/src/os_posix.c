/*
 * os_posix.c - the POSIX (Linux) implementation of iobench/os.h.  The only
 * core files that make system calls directly are this one and its rooms,
 * which share os_posix_int.h (their Windows twins: os_win32*.c):
 *
 *   os_posix.c          clocks, memory, the system (host, time, root),
 *                       quiet commands, sleeping, /proc I/O counters, the
 *                       per-I/O clock (TSC or not), threads, barriers, once,
 *                       per-thread accounting, NUMA placement (affinity and
 *                       memory policy of the calling thread)
 *   os_posix_paths.c    paths by name: kind, size, free space, made and
 *                       removed, access, identity, the real path, file
 *                       systems' facts, holes, direct I/O alignment, a
 *                       directory's list, temporary files
 *   os_posix_cache.c    the page cache: residency (cachestat, mincore),
 *                       eviction, dropping, unwritten pages
 *   os_posix_streams.c  streams and descriptors: lines, terminals, pipes,
 *                       the standard descriptors, argv, stop signals
 *   os_posix_open.c     directories held open (the *_at calls), plugin
 *                       files opened on checked descriptors, dlopen, the
 *                       isolated probe
 */
#include "os_posix_int.h"

uint64_t iob_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

uint64_t iob_clock_ns(enum iob_clock clock)
{
	struct rusage ru;
	struct timespec ts;

	switch (clock) {
	case IOB_CLOCK_USER:
		getrusage(RUSAGE_SELF, &ru);
		return tv_ns(ru.ru_utime);
	case IOB_CLOCK_SYSTEM:
		getrusage(RUSAGE_SELF, &ru);
		return tv_ns(ru.ru_stime);
	case IOB_CLOCK_PROCESS:
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	case IOB_CLOCK_WALL:
	default:
		return iob_now_ns();
	}
}

uint64_t iob_clock_resolution_ns(enum iob_clock clock)
{
	struct timespec ts = {0, 0};
	switch (clock) {
	case IOB_CLOCK_USER:
	case IOB_CLOCK_SYSTEM:
		return 1000; /* getrusage reports microseconds */
	case IOB_CLOCK_PROCESS:
		clock_getres(CLOCK_PROCESS_CPUTIME_ID, &ts);
		break;
	case IOB_CLOCK_WALL:
	default:
		clock_getres(CLOCK_MONOTONIC, &ts);
		break;
	}
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns ? ns : 1;
}

void *iob_alloc_aligned(size_t alignment, size_t size)
{
	void *p = NULL;
	if (alignment < sizeof(void *))
		alignment = sizeof(void *);
	if (size == 0)
		size = alignment;
	if (posix_memalign(&p, alignment, size) != 0)
		return NULL;
	return p;
}

void iob_free_aligned(void *ptr)
{
	free(ptr);
}

int iob_mem_populate(void *p, size_t len)
{
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(ps - 1);
	if (len == 0)
		return 0;
	return madvise((void *)a, (size_t)((uintptr_t)p + len - a), MADV_POPULATE_WRITE) == 0 ? 0 : -errno;
#else
	(void)p;
	(void)len;
	return -ENOTSUP;
#endif
}

uint64_t iob_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psize <= 0)
		return 0;
	return (uint64_t)pages * (uint64_t)psize;
}

uint64_t iob_page_size(void)
{
	long psize = sysconf(_SC_PAGESIZE);
	return psize > 0 ? (uint64_t)psize : 0;
}

unsigned iob_cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

uint64_t iob_free_memory(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024u;
}

uint64_t iob_available_memory(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	int found = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f))
		found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
	fclose(f);
	return found ? (uint64_t)kb * 1024u : 0;
}

void iob_hostname(char *buf, size_t len)
{
	if (len == 0)
		return;
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	char *dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
}

/* The local time now, broken down. */
static struct tm local_now(void)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	return tm;
}

void iob_time_iso8601(char *buf, size_t len)
{
	struct tm tm = local_now();
	if (strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0 && len)
		buf[0] = '\0';
}

void iob_time_stamp(char *buf, size_t len)
{
	struct tm tm = local_now();
	if (strftime(buf, len, "%Y%m%d.%H%M%S", &tm) == 0 && len)
		buf[0] = '\0';
}

int iob_is_root(void)
{
	return geteuid() == 0;
}

void iob_kernel(char *buf, size_t len)
{
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(buf, len, "unknown");
}

const char *iob_wine_version(void)
{
	return NULL;
}

extern char **environ;

int iob_run_quiet(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -rc;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EPERM;
}

void iob_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	while ((ts.tv_sec > 0 || ts.tv_nsec > 0) && !(stop && __atomic_load_n(stop, __ATOMIC_RELAXED)))
		if (nanosleep(&ts, &ts) == 0)
			break;
}

uint32_t iob_euid(void)
{
	return (uint32_t)geteuid();
}

/* Parse the text of /proc/.../io: rchar (less `self`, our own reads of these
 * files), wchar, read_bytes and write_bytes (UINT64_MAX when the kernel does
 * not count them: no CONFIG_TASK_IO_ACCOUNTING).  Each pointer may be NULL.
 * Returns which of rchar (1) and wchar (2) were found. */
/* "KEY: N" at line (key with its colon): 1 and *v, else 0.  A prefix and a
 * strtoull, not sscanf: four sscanf a line, four reads a phase, were a
 * visible share of a short run's start-up and exit. */
static int proc_field(const char *line, const char *key, unsigned long long *v)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n) != 0)
		return 0;
	char *end;
	*v = strtoull(line + n, &end, 10);
	return end != line + n;
}

static int parse_proc_io(const char *buf, uint64_t self, uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes,
			 uint64_t *write_bytes)
{
	unsigned long long v;
	int found = 0;
	if (read_bytes)
		*read_bytes = UINT64_MAX;
	if (write_bytes)
		*write_bytes = UINT64_MAX;
	for (const char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (proc_field(line, "rchar:", &v)) {
			if (rchar)
				*rchar = v - self;
			found |= 1;
		} else if (proc_field(line, "wchar:", &v)) {
			if (wchar)
				*wchar = v;
			found |= 2;
		} else if (proc_field(line, "read_bytes:", &v) && read_bytes) {
			*read_bytes = v;
		} else if (proc_field(line, "write_bytes:", &v) && write_bytes) {
			*write_bytes = v;
		}
	}
	return found;
}

/* A small /proc file read whole into buf (NUL-terminated): its length, or
 * -ENOTSUP when it cannot be read. */
static ssize_t read_proc_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOTSUP;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ENOTSUP;
	buf[n] = '\0';
	return n;
}

int iob_proc_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	/* Our own reads of /proc/self/io count in rchar too: remember them and
	 * leave them out, so callers see only the I/O they did. */
	static uint64_t self_read; /* every thread's reads of it: atomic */
	static int readable;	   /* it was read once: asking only whether it can be needs no read */
	extern _Thread_local uint64_t iob_thread_self_read;
	if (!rchar && !wchar && !read_bytes && !write_bytes && __atomic_load_n(&readable, __ATOMIC_RELAXED))
		return 0;
	char buf[1024];
	ssize_t n = read_proc_file("/proc/self/io", buf, sizeof buf);
	if (n < 0)
		return (int)n;
	__atomic_store_n(&readable, 1, __ATOMIC_RELAXED);
	parse_proc_io(buf, __atomic_load_n(&self_read, __ATOMIC_RELAXED), rchar, wchar, read_bytes, write_bytes);
	__atomic_add_fetch(&self_read, (uint64_t)n, __ATOMIC_RELAXED);
	iob_thread_self_read += (uint64_t)n; /* it counts in this thread's rchar too */
	return 0;
}

int iob_ticks_tsc;

static void ticks_decide(void)
{
#ifdef IOB_HAVE_TSC
	/* The kernel only picks "tsc" as its clock source when the TSC is
	 * invariant and synchronized across CPUs: trust its judgement. */
	char src[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (f) {
		if (fgets(src, sizeof src, f))
			src[strcspn(src, "\n")] = '\0';
		fclose(f);
	}
	iob_ticks_tsc = strcmp(src, "tsc") == 0 && !getenv("IOBENCH_NO_TSC");
#endif
}

/* Safe from any number of streams at once: decided once, before any of
 * them reads iob_ticks_tsc. */
void iob_ticks_init(void)
{
	static int once;
	iob_once(&once, ticks_decide);
}

/* ------------------------------------------------------------------------ */
/* Threads, barriers, once, per-thread accounting (streams.c).              */

struct iob_thread {
	pthread_t id;
	void (*fn)(void *);
	void *arg;
};

static void *thread_main(void *p)
{
	struct iob_thread *t = p;
	t->fn(t->arg);
	return NULL;
}

int iob_thread_start(struct iob_thread **out, void (*fn)(void *arg), void *arg)
{
	struct iob_thread *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->fn = fn;
	t->arg = arg;
	/* stop signals are handled by the thread that started the streams */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&t->id, NULL, thread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		free(t);
		return -rc;
	}
	*out = t;
	return 0;
}

void iob_thread_join(struct iob_thread *t)
{
	if (!t)
		return;
	pthread_join(t->id, NULL);
	free(t);
}

/* NUMA placement (numa.c): sysfs's node lists, sched_setaffinity and
 * set_mempolicy (the raw system call: no libnuma) */
int iob_numa_sys_read(const char *name, char *buf, size_t len)
{
	char path[160];
	if (strstr(name, "..") || snprintf(path, sizeof path, "/sys/devices/system/node/%s", name) >= (int)sizeof path)
		return -EINVAL;
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int rc = fgets(buf, (int)len, f) ? 0 : -EIO;
	fclose(f);
	if (rc == 0)
		buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

#if defined(__linux__) && defined(SYS_set_mempolicy) && defined(SYS_get_mempolicy)
#define PLACE_NODE_BITS (IOB_PLACE_WORDS * 64)
int iob_place_get(struct iob_place *p)
{
	cpu_set_t set;
	memset(p, 0, sizeof *p);
	p->mode = -1;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && c < PLACE_NODE_BITS; c++)
		if (CPU_ISSET(c, &set))
			p->cpus[c / 64] |= 1ull << (c % 64);
	p->cpus_set = 1;
	int mode = 0;
	unsigned long nodes[IOB_PLACE_WORDS * 64 / (8 * sizeof(unsigned long))] = {0};
	if (syscall(SYS_get_mempolicy, &mode, nodes, (unsigned long)PLACE_NODE_BITS, NULL, 0UL) != 0)
		return -errno;
	memcpy(p->nodes, nodes, sizeof p->nodes);
	p->mode = mode;
	return 0;
}

int iob_place_set(const struct iob_place *p, const char **what)
{
	if (p->cpus_set) {
		cpu_set_t set;
		CPU_ZERO(&set);
		for (int c = 0; c < CPU_SETSIZE && c < PLACE_NODE_BITS; c++)
			if (p->cpus[c / 64] >> (c % 64) & 1)
				CPU_SET(c, &set);
		if (sched_setaffinity(0, sizeof set, &set) != 0) {
			*what = "sched_setaffinity";
			return -errno;
		}
	}
	if (p->mode >= 0) {
		unsigned long nodes[IOB_PLACE_WORDS * 64 / (8 * sizeof(unsigned long))];
		memcpy(nodes, p->nodes, sizeof nodes);
		/* maxnode: the mask's bits + 1, as the kernel reads maxnode - 1 bits */
		int none = (p->mode & 0xff) == 0 || (p->mode & 0xff) == 4; /* default, local: no nodes */
		if (syscall(SYS_set_mempolicy, p->mode, none ? NULL : nodes, none ? 0UL : (unsigned long)PLACE_NODE_BITS + 1) != 0) {
			*what = "set_mempolicy";
			return -errno;
		}
	}
	return 0;
}
#else /* no NUMA system calls: numa.c refuses the keys */
int iob_place_get(struct iob_place *p) { return memset(p, 0, sizeof *p), p->mode = -1, -ENOTSUP; }
int iob_place_set(const struct iob_place *p, const char **what) { return (void)p, *what = "NUMA placement", -ENOTSUP; }
#endif

struct iob_barrier {
	pthread_mutex_t lock;
	pthread_cond_t all_here;
	unsigned count, here;
	unsigned long round;
};

int iob_barrier_init(struct iob_barrier **out, unsigned count)
{
	struct iob_barrier *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	int rc = pthread_mutex_init(&b->lock, NULL);
	if (rc == 0 && (rc = pthread_cond_init(&b->all_here, NULL)) != 0)
		pthread_mutex_destroy(&b->lock);
	if (rc != 0) {
		free(b);
		return -rc;
	}
	b->count = count ? count : 1;
	*out = b;
	return 0;
}

/* one arrival; the last of a round releases it.  Called with the lock. */
static int barrier_arrive_locked(struct iob_barrier *b)
{
	if (++b->here < b->count)
		return 0;
	b->here = 0;
	b->round++;
	pthread_cond_broadcast(&b->all_here);
	return 1;
}

void iob_barrier_wait(struct iob_barrier *b)
{
	pthread_mutex_lock(&b->lock);
	unsigned long round = b->round;
	if (!barrier_arrive_locked(b))
		while (b->round == round)
			pthread_cond_wait(&b->all_here, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

void iob_barrier_arrive(struct iob_barrier *b)
{
	pthread_mutex_lock(&b->lock);
	barrier_arrive_locked(b);
	pthread_mutex_unlock(&b->lock);
}

int iob_barrier_await_ns(struct iob_barrier *b, uint64_t ns)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until); /* the clock pthread_cond_timedwait keeps */
	until.tv_sec += (time_t)(ns / 1000000000u);
	until.tv_nsec += (long)(ns % 1000000000u);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&b->lock);
	if (b->round == 0)
		pthread_cond_timedwait(&b->all_here, &b->lock, &until);
	int over = b->round != 0;
	pthread_mutex_unlock(&b->lock);
	return over;
}

void iob_barrier_destroy(struct iob_barrier *b)
{
	if (!b)
		return;
	pthread_cond_destroy(&b->all_here);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

/* fn must not call iob_once itself (one lock serves every flag) */
void iob_once(int *flag, void (*fn)(void))
{
	if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&once_lock);
	if (!__atomic_load_n(flag, __ATOMIC_RELAXED)) {
		fn();
		__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&once_lock);
}

/* this thread's reads of /proc/self/io and /proc/thread-self/io, which
 * count in its rchar: left out of what iob_proc_thread_io reports */
_Thread_local uint64_t iob_thread_self_read;

int iob_proc_thread_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	uint64_t *self_read = &iob_thread_self_read;
	char buf[1024];
	ssize_t n = read_proc_file("/proc/thread-self/io", buf, sizeof buf);
	if (n < 0)
		return (int)n;
	int found = parse_proc_io(buf, *self_read, rchar, wchar, read_bytes, write_bytes);
	*self_read += (uint64_t)n;
	return found == 3 ? 0 : -ENOTSUP;
}

int iob_cpu_times_ns(int thread, uint64_t *user_ns, uint64_t *sys_ns)
{
	struct rusage ru;
#ifdef RUSAGE_THREAD
	int who = thread ? RUSAGE_THREAD : RUSAGE_SELF;
#else
	int who = RUSAGE_SELF;
	if (thread)
		return -ENOTSUP;
#endif
	if (getrusage(who, &ru) != 0)
		return -errno;
	*user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000ull;
	*sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	return 0;
}
