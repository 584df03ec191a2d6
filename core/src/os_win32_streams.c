/*
 * os_win32_streams.c - streams and descriptors (os.h): lines read,
 * consoles, writes in full, pipes and their readers, the standard
 * descriptors, argv in UTF-8, Ctrl-C and its kin.  A room of os_win32.c
 * (its map); the twin of os_posix_streams.c.
 */
#include "os_win32_int.h"

FILE *iob_fopen(const char *path, const char *mode)
{
	wchar_t wmode[16];
	size_t n = 0;
	for (const char *m = mode; *m && n + 2 < sizeof wmode / sizeof wmode[0]; m++)
		if (*m != 'e') /* close-on-exec: 'N' (not inherited) below */
			wmode[n++] = (wchar_t)*m;
	wmode[n++] = L'N';
	wmode[n] = 0;
	wchar_t *w = wide(path);
	if (!w)
		return NULL;
	FILE *f = _wfopen(w, wmode);
	free(w);
	return f;
}

/* ---- streams and descriptors ---- */

long iob_getline(char **line, size_t *cap, FILE *f)
{
	size_t n = 0;
	int c;
	if (!*line || *cap < 2) {
		char *p = realloc(*line, 128);
		if (!p)
			return -1;
		*line = p;
		*cap = 128;
	}
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > *cap) {
			char *p = realloc(*line, *cap * 2);
			if (!p)
				return -1;
			*line = p;
			*cap *= 2;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	(*line)[n] = '\0';
	return n == 0 ? -1 : (long)n;
}

#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING

#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004

#endif

/* A console also gets virtual-terminal processing turned on (Windows 10 and
 * later), so the progress line's "\r" and erase-to-end work there. */
int iob_stream_is_pipe(FILE *f)
{
	(void)f;
	return 0;
}

int iob_stream_reader_gone(FILE *f, int wake_fd, int timeout_ms)
{
	(void)f;
	(void)wake_fd;
	(void)timeout_ms;
	return 0;
}

int iob_wake_pipe(int fds[2])
{
	fds[0] = fds[1] = -1;
	return -ENOTSUP;
}

void iob_wake_pipe_close(int fds[2])
{
	(void)fds;
}

int iob_std_fds_reopen(void)
{
	return 0;
}

int iob_is_terminal(FILE *f)
{
	int fd = _fileno(f);
	if (!_isatty(fd))
		return 0;
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	DWORD mode;
	if (h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode) && !(mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING))
		SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	return 1;
}

int iob_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
		int n = _write(fd, p, chunk);
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
	return _fileno(f);
}

/* main's argv is in the ANSI code page: rebuild it from the UTF-16 command
 * line.  The strings live as long as the process. */
void iob_utf8_args(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	if (!w || n <= 0)
		return;
	char **out = calloc((size_t)n + 1, sizeof *out);
	for (int i = 0; out && i < n; i++) {
		int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
		out[i] = len > 0 ? malloc((size_t)len) : NULL;
		if (!out[i]) {
			out = NULL; /* keep the original argv (a leak of what was made, once) */
			break;
		}
		WideCharToMultiByte(CP_UTF8, 0, w[i], -1, out[i], len, NULL, NULL);
	}
	LocalFree(w);
	if (!out)
		return;
	*argc = n;
	*argv = out;
}

/* ---- Ctrl-C, Ctrl-Break, closing the console ---- */

static volatile sig_atomic_t *stop_flag;

static volatile LONG stop_seen;

static BOOL WINAPI on_console_event(DWORD ev)
{
	int sig;
	switch (ev) {
	case CTRL_C_EVENT:
		sig = SIGINT; /* 2: exit 130 as on Linux */
		break;
	case CTRL_BREAK_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		sig = SIGTERM; /* 15: exit 143 */
		break;
	case CTRL_CLOSE_EVENT:
	case CTRL_LOGOFF_EVENT:
		sig = 1; /* SIGHUP: exit 129 */
		break;
	default:
		return FALSE;
	}
	/* a second event ends the process the default way */
	if (InterlockedExchange(&stop_seen, 1))
		return FALSE;
	if (stop_flag && !*stop_flag)
		*stop_flag = sig;
	return TRUE;
}

void iob_install_stop_handlers(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
	SetConsoleCtrlHandler(on_console_event, TRUE);
}

/* The thread's I/O priority: Linux's ioprio (os.h); none here. */
int iob_thread_ioprio_set(unsigned value)
{
	(void)value;
	return -ENOTSUP;
}

int iob_thread_ioprio_get(void)
{
	return -ENOTSUP;
}
