/*
 * os_win32.c - the Windows implementation of iobench/os.h (mingw-w64 build,
 * docs/windows.md).  Paths are UTF-8 everywhere in iobench; every file call
 * here converts them to UTF-16 and uses the wide API.  Paths handed back
 * (iob_exe_dir, iob_real_path) use '/' as separator, which Windows accepts.
 * Where Windows has no such probe (page-cache residency, dropping the cache,
 * per-thread I/O counters) the function says -ENOTSUP, which the run reports
 * as "not measured".
 *
 * This file and its rooms share os_win32_int.h (errors, UTF-8 and UTF-16,
 * a path's attributes); they are the twins of os_posix*.c:
 *
 *   os_win32.c          clocks, memory, the system (host, time, root,
 *                       kernel), quiet commands, sleeping, the per-I/O
 *                       clock, threads, barriers, once, per-thread accounting
 *   os_win32_paths.c    paths by name: kind, size, free space, made and
 *                       removed, access, identity, the real path, file
 *                       systems' facts, holes, direct I/O alignment, a
 *                       directory's list, temporary files
 *   os_win32_cache.c    the page cache: no residency probe nor a drop
 *   os_win32_streams.c  streams and descriptors: lines, consoles, pipes,
 *                       the standard descriptors, argv in UTF-8, Ctrl-C
 *   os_win32_open.c     directories and plugin files held open (the slot
 *                       table, the *_at calls), plugins loaded
 */
#include "os_win32_int.h"

/* ---- clocks ---- */

static uint64_t qpc_freq(void)
{
	static volatile LONG64 freq;
	if (!freq) {
		LARGE_INTEGER f;
		QueryPerformanceFrequency(&f);
		freq = f.QuadPart > 0 ? f.QuadPart : 1;
	}
	return (uint64_t)freq;
}

uint64_t iob_now_ns(void)
{
	LARGE_INTEGER c;
	QueryPerformanceCounter(&c);
	uint64_t f = qpc_freq(), v = (uint64_t)c.QuadPart;
	return v / f * 1000000000u + v % f * 1000000000u / f;
}

static uint64_t ft_ns(FILETIME ft)
{
	return (((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime) * 100u;
}

static int times_of(HANDLE h, int thread, uint64_t *user, uint64_t *sys)
{
	FILETIME c, e, k, u;
	BOOL ok = thread ? GetThreadTimes(h, &c, &e, &k, &u) : GetProcessTimes(h, &c, &e, &k, &u);
	if (!ok)
		return last_err();
	*user = ft_ns(u);
	*sys = ft_ns(k);
	return 0;
}

uint64_t iob_clock_ns(enum iob_clock clock)
{
	uint64_t u = 0, s = 0;
	if (clock == IOB_CLOCK_WALL || times_of(GetCurrentProcess(), 0, &u, &s) != 0)
		return iob_now_ns();
	return clock == IOB_CLOCK_USER ? u : clock == IOB_CLOCK_SYSTEM ? s : u + s;
}

uint64_t iob_clock_resolution_ns(enum iob_clock clock)
{
	if (clock == IOB_CLOCK_WALL) {
		uint64_t r = 1000000000u / qpc_freq();
		return r ? r : 1;
	}
	/* CPU times advance by the clock interrupt, not by their 100 ns unit */
	DWORD adj = 0, inc = 0;
	BOOL off = TRUE;
	if (GetSystemTimeAdjustment(&adj, &inc, &off) && inc)
		return (uint64_t)inc * 100u;
	return 100;
}

void *iob_alloc_aligned(size_t alignment, size_t size)
{
	if (alignment < sizeof(void *))
		alignment = sizeof(void *);
	if (size == 0)
		size = alignment;
	return _aligned_malloc(size, alignment);
}

void iob_free_aligned(void *ptr)
{
	_aligned_free(ptr);
}

int iob_mem_populate(void *p, size_t len)
{
	(void)p;
	(void)len;
	return -ENOTSUP; /* the engine touches the pages instead */
}

/* ---- the system ---- */

static int memory_status(MEMORYSTATUSEX *m)
{
	memset(m, 0, sizeof *m);
	m->dwLength = sizeof *m;
	return GlobalMemoryStatusEx(m) ? 0 : -1;
}

uint64_t iob_physical_memory(void)
{
	MEMORYSTATUSEX m;
	return memory_status(&m) == 0 ? m.ullTotalPhys : 0;
}

uint64_t iob_page_size(void)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwPageSize;
}

unsigned iob_cpus_online(void)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwNumberOfProcessors ? si.dwNumberOfProcessors : 1;
}

uint64_t iob_free_memory(void)
{
	MEMORYSTATUSEX m; /* available: free, zeroed and standby (cache) pages */
	return memory_status(&m) == 0 ? m.ullAvailPhys : 0;
}

uint64_t iob_available_memory(void)
{
	return iob_free_memory(); /* ullAvailPhys: free, zeroed and standby pages */
}

void iob_hostname(char *buf, size_t len)
{
	wchar_t w[256];
	DWORD n = sizeof w / sizeof w[0];
	if (len == 0)
		return;
	if (!GetComputerNameExW(ComputerNameDnsHostname, w, &n) || narrow(w, buf, len, 0) != 0)
		snprintf(buf, len, "unknown");
	char *dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
}

void iob_time_iso8601(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm lt, gt;
	localtime_s(&lt, &now);
	gmtime_s(&gt, &now);
	/* msvcrt's %z is a zone name: the offset is worked out here */
	long days = lt.tm_year != gt.tm_year ? (lt.tm_year > gt.tm_year ? 1 : -1) : lt.tm_yday - gt.tm_yday;
	long off = days * 1440 + (lt.tm_hour - gt.tm_hour) * 60 + (lt.tm_min - gt.tm_min);
	char date[32];
	if (strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &lt) == 0) {
		if (len)
			buf[0] = '\0';
		return;
	}
	long a = off < 0 ? -off : off;
	snprintf(buf, len, "%s%c%02ld%02ld", date, off < 0 ? '-' : '+', a / 60, a % 60);
}

void iob_time_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_s(&tm, &now);
	if (strftime(buf, len, "%Y%m%d.%H%M%S", &tm) == 0 && len)
		buf[0] = '\0';
}

/* An elevated token is Windows' nearest thing to root. */
int iob_is_root(void)
{
	HANDLE tok;
	TOKEN_ELEVATION el = {0};
	DWORD n = 0;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return 0;
	BOOL ok = GetTokenInformation(tok, TokenElevation, &el, sizeof el, &n);
	CloseHandle(tok);
	return ok && el.TokenIsElevated;
}

/* No owners are compared on Windows: every file counts as the user's own. */
uint32_t iob_euid(void)
{
	return iob_is_root() ? 0 : 1000;
}

/* "Windows 10.0.19045 x86_64", with " (wine 8.0)" under wine. */
void iob_kernel(char *buf, size_t len)
{
	typedef LONG(WINAPI * rtl_version_fn)(OSVERSIONINFOW *);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	OSVERSIONINFOW v;
	memset(&v, 0, sizeof v);
	v.dwOSVersionInfoSize = sizeof v;
	FARPROC rtl = ntdll ? GetProcAddress(ntdll, "RtlGetVersion") : NULL;
	rtl_version_fn fn;
	memcpy(&fn, &rtl, sizeof fn);
	if (!rtl || fn(&v) != 0)
		v.dwMajorVersion = v.dwMinorVersion = v.dwBuildNumber = 0;
	const char *wine = iob_wine_version();
	snprintf(buf, len, "Windows %lu.%lu.%lu x86_64%s%s%s", (unsigned long)v.dwMajorVersion,
		 (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber, wine ? " (wine " : "",
		 wine ? wine : "", wine ? ")" : "");
}

const char *iob_wine_version(void)
{
	typedef const char *(CDECL * wine_version_fn)(void);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	FARPROC p = ntdll ? GetProcAddress(ntdll, "wine_get_version") : NULL;
	wine_version_fn fn;
	if (!p)
		return NULL;
	memcpy(&fn, &p, sizeof fn);
	return fn();
}

/* The tools caveats.c asks (Linux utilities) do not exist here. */
int iob_run_quiet(char *const argv[])
{
	(void)argv;
	return -ENOTSUP;
}

void iob_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop)
{
	uint64_t end = iob_now_ns() + ns;
	for (;;) {
		uint64_t now = iob_now_ns();
		if (now >= end || (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)))
			return;
		uint64_t ms = (end - now) / 1000000u;
		Sleep(ms > 10 ? 10 : ms ? (DWORD)ms : 0);
	}
}

/* Windows counts a process's I/O (GetProcessIoCounters) but not the way
 * /proc/self/io does: not used. */
int iob_proc_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	(void)rchar;
	(void)wchar;
	(void)read_bytes;
	(void)write_bytes;
	return -ENOTSUP;
}

/* ---- the per-I/O clock: QueryPerformanceCounter (iob_now_ns), no TSC ---- */

int iob_ticks_tsc;

void iob_ticks_init(void)
{
	iob_ticks_tsc = 0;
}

/* ---- threads ---- */

struct iob_thread {
	HANDLE h;
	void (*fn)(void *);
	void *arg;
};

static unsigned __stdcall thread_main(void *p)
{
	struct iob_thread *t = p;
	t->fn(t->arg);
	return 0;
}

int iob_thread_start(struct iob_thread **out, void (*fn)(void *arg), void *arg)
{
	struct iob_thread *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->fn = fn;
	t->arg = arg;
	uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
	if (h == 0) {
		int e = errno;
		free(t);
		return -(e ? e : EAGAIN);
	}
	t->h = (HANDLE)h;
	*out = t;
	return 0;
}

/* NUMA placement: not on Windows builds (numa.c refuses the keys) */
int iob_numa_sys_read(const char *name, char *buf, size_t len)
{
	(void)name;
	if (len)
		buf[0] = '\0';
	return -ENOTSUP;
}

int iob_place_get(struct iob_place *p)
{
	memset(p, 0, sizeof *p);
	p->mode = -1;
	return -ENOTSUP;
}

int iob_place_set(const struct iob_place *p, const char **what)
{
	(void)p;
	*what = "NUMA placement";
	return -ENOTSUP;
}

void iob_thread_join(struct iob_thread *t)
{
	if (!t)
		return;
	WaitForSingleObject(t->h, INFINITE);
	CloseHandle(t->h);
	free(t);
}

struct iob_barrier {
	SRWLOCK lock;
	CONDITION_VARIABLE all_here;
	unsigned count, here;
	unsigned long round;
};

int iob_barrier_init(struct iob_barrier **out, unsigned count)
{
	struct iob_barrier *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	InitializeSRWLock(&b->lock);
	InitializeConditionVariable(&b->all_here);
	b->count = count ? count : 1;
	*out = b;
	return 0;
}

static int barrier_arrive_locked(struct iob_barrier *b)
{
	if (++b->here < b->count)
		return 0;
	b->here = 0;
	b->round++;
	WakeAllConditionVariable(&b->all_here);
	return 1;
}

void iob_barrier_wait(struct iob_barrier *b)
{
	AcquireSRWLockExclusive(&b->lock);
	unsigned long round = b->round;
	if (!barrier_arrive_locked(b))
		while (b->round == round)
			SleepConditionVariableSRW(&b->all_here, &b->lock, INFINITE, 0);
	ReleaseSRWLockExclusive(&b->lock);
}

void iob_barrier_arrive(struct iob_barrier *b)
{
	AcquireSRWLockExclusive(&b->lock);
	barrier_arrive_locked(b);
	ReleaseSRWLockExclusive(&b->lock);
}

int iob_barrier_await_ns(struct iob_barrier *b, uint64_t ns)
{
	AcquireSRWLockExclusive(&b->lock);
	if (b->round == 0)
		SleepConditionVariableSRW(&b->all_here, &b->lock, (DWORD)(ns / 1000000u + 1), 0);
	int over = b->round != 0;
	ReleaseSRWLockExclusive(&b->lock);
	return over;
}

void iob_barrier_destroy(struct iob_barrier *b)
{
	free(b);
}

static SRWLOCK once_lock = SRWLOCK_INIT;

void iob_once(int *flag, void (*fn)(void))
{
	if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		return;
	AcquireSRWLockExclusive(&once_lock);
	if (!__atomic_load_n(flag, __ATOMIC_RELAXED)) {
		fn();
		__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	}
	ReleaseSRWLockExclusive(&once_lock);
}

/* A thread's I/O, likewise not counted: iob_proc_io's answer. */
int iob_proc_thread_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	return iob_proc_io(rchar, wchar, read_bytes, write_bytes);
}

int iob_cpu_times_ns(int thread, uint64_t *user_ns, uint64_t *sys_ns)
{
	return times_of(thread ? GetCurrentThread() : GetCurrentProcess(), thread, user_ns, sys_ns);
}
