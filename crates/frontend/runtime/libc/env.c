/*
 * walkdown's model of a program's environment below the C library: the
 * file descriptors of standard input, standard output and error, and the
 * named files a test gives the program, each a stream of bytes the start
 * function drew from the test's inputs (see walkdown_ir::env and the
 * frontend's env.rs, which generates the start function).
 *
 * Why here, under musl's stdio: musl's own getc, fgets, fread, scanf,
 * getline, ungetc ... then read these bytes through their FILE objects,
 * exactly as natively they read the bytes of a real descriptor, so every
 * engine follows the program's input handling as code. The system calls
 * musl would make (read, open, close) are the functions below.
 *
 * What differs from a real system: writes go nowhere (output has no
 * effect in the model, as printf's hand model); a name the test does not
 * give cannot be opened for reading (ENOENT); no buffering, so every read
 * takes the bytes it asks for at once. Without a start function (a program
 * that reads nothing of its environment, a Test-Comp task) standard input
 * is empty: every read is at end of file, as the native harness runs it.
 */
#include "stdio_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The streams: [0] standard input, then the named files. */
#define WD_MAX_SOURCES 9
/* Descriptors: 0..2 and up to 13 opened files. */
#define WD_MAX_FDS 16

struct wd_source {
	const char *name;
	const unsigned char *data;
	unsigned long len;
};

struct wd_fd {
	int used;
	int source; /* index into sources, or -1 for a descriptor that only writes */
	unsigned long pos;
};

static struct wd_source sources[WD_MAX_SOURCES];
static int nsources = 1;
static struct wd_fd fds[WD_MAX_FDS] = {
	{ 1, 0, 0 },
	{ 1, -1, 0 },
	{ 1, -1, 0 },
};

/* Called by the start function: standard input's bytes. */
void __walkdown_env_set_stdin(const unsigned char *data, unsigned long len)
{
	sources[0].data = data;
	sources[0].len = len;
}

/* Called by the start function: a named file's bytes. */
void __walkdown_env_add_file(const char *name, const unsigned char *data, unsigned long len)
{
	if (nsources == WD_MAX_SOURCES) return;
	sources[nsources].name = name;
	sources[nsources].data = data;
	sources[nsources].len = len;
	nsources++;
}

static struct wd_fd *descriptor(int fd)
{
	if (fd < 0 || fd >= WD_MAX_FDS || !fds[fd].used) {
		errno = EBADF;
		return 0;
	}
	return &fds[fd];
}

ssize_t read(int fd, void *buf, size_t n)
{
	struct wd_fd *d = descriptor(fd);
	if (!d) return -1;
	if (d->source < 0) {
		errno = EBADF;
		return -1;
	}
	const struct wd_source *s = &sources[d->source];
	unsigned char *out = buf;
	size_t k = 0;
	while (k < n && d->pos < s->len) out[k++] = s->data[d->pos++];
	return k;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	(void)buf;
	return descriptor(fd) ? (ssize_t)n : -1;
}

int open(const char *name, int flags, ...)
{
	int source = -1;
	for (int i = 1; i < nsources; i++)
		if (strcmp(sources[i].name, name) == 0) source = i;
	if (source < 0 && !(flags & O_CREAT)) {
		errno = ENOENT;
		return -1;
	}
	for (int fd = 3; fd < WD_MAX_FDS; fd++) {
		if (!fds[fd].used) {
			fds[fd].used = 1;
			fds[fd].source = source;
			fds[fd].pos = 0;
			return fd;
		}
	}
	errno = EMFILE;
	return -1;
}

/* Every source is a byte array, so every descriptor that reads one can
 * seek, as natively a regular file can (the native replay gives standard
 * input from a file, too). */
off_t lseek(int fd, off_t off, int whence)
{
	struct wd_fd *d = descriptor(fd);
	if (!d) return -1;
	if (d->source < 0) {
		errno = ESPIPE;
		return -1;
	}
	off_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (off_t)d->pos : (off_t)sources[d->source].len;
	if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) {
		errno = EINVAL;
		return -1;
	}
	if (off < -base) {
		errno = EINVAL;
		return -1;
	}
	d->pos = base + off;
	return base + off;
}

off_t lseek64(int fd, off_t off, int whence) { return lseek(fd, off, whence); }

/* Advice changes nothing here (natively it changes only the page cache). */
int posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	(void)off, (void)len, (void)advice;
	return descriptor(fd) ? 0 : EBADF;
}

int posix_fadvise64(int fd, off_t off, off_t len, int advice) { return posix_fadvise(fd, off, len, advice); }

int close(int fd)
{
	struct wd_fd *d = descriptor(fd);
	if (!d) return -1;
	d->used = 0;
	return 0;
}

/* The environment has no variables: a run of walkdown's and its native
 * replay (which clears the process environment) both see none. */
char *getenv(const char *name)
{
	(void)name;
	return 0;
}

char *secure_getenv(const char *name)
{
	(void)name;
	return 0;
}

/* musl's FILE callbacks over the descriptors above.
 *
 * A read hands its caller all bytes but the last directly; the last goes
 * through the FILE's buffer (one byte of it), because musl's scanner
 * ungets a character by stepping the buffer's read position back, so the
 * byte read last must be the one before that position. */
size_t __stdio_read(FILE *f, unsigned char *buf, size_t len)
{
	size_t direct = f->buf_size ? len - 1 : len;
	ssize_t n = direct ? read(f->fd, buf, direct) : 0;
	if (n < 0 || (n == 0 && direct)) {
		f->flags |= n ? F_ERR : F_EOF;
		return 0;
	}
	if ((size_t)n < direct || !f->buf_size) return n;
	ssize_t last = read(f->fd, f->buf, 1);
	if (last <= 0) {
		if (!n) f->flags |= last ? F_ERR : F_EOF;
		return n;
	}
	f->rpos = f->buf;
	f->rend = f->buf + 1;
	buf[len - 1] = *f->rpos++;
	return len;
}

size_t __stdio_write(FILE *f, const unsigned char *buf, size_t len)
{
	(void)buf;
	f->wpos = f->wbase = f->buf;
	f->wend = f->buf + f->buf_size;
	return len;
}

off_t __stdio_seek(FILE *f, off_t off, int whence)
{
	return lseek(f->fd, off, whence);
}

int __stdio_close(FILE *f)
{
	return close(f->fd);
}

/* open's flags for an fopen mode: "r" reads, "w" and "a" create, "+"
 * does both. */
static int mode_open_flags(const char *mode)
{
	int flags = strchr(mode, '+') ? O_RDWR : *mode == 'r' ? O_RDONLY : O_WRONLY;
	return *mode == 'r' ? flags : flags | O_CREAT;
}

/* A FILE's direction flags for an fopen mode. */
static unsigned mode_file_flags(const char *mode)
{
	if (strchr(mode, '+')) return 0;
	return *mode == 'r' ? F_NOWR : F_NORD;
}

FILE *fdopen(int fd, const char *mode)
{
	if (!descriptor(fd)) return 0;
	FILE *f = malloc(sizeof *f + UNGET + BUFSIZ);
	if (!f) return 0;
	memset(f, 0, sizeof *f);
	f->flags = mode_file_flags(mode);
	f->fd = fd;
	f->buf = (unsigned char *)f + sizeof *f + UNGET;
	f->buf_size = BUFSIZ;
	f->lbf = EOF;
	f->lock = -1;
	f->read = __stdio_read;
	f->write = __stdio_write;
	f->seek = __stdio_seek;
	f->close = __stdio_close;
	return f;
}

FILE *fopen(const char *restrict name, const char *restrict mode)
{
	int fd = open(name, mode_open_flags(mode));
	if (fd < 0) return 0;
	FILE *f = fdopen(fd, mode);
	if (!f) close(fd);
	return f;
}

int fclose(FILE *f)
{
	int r = f->close(f);
	if (!(f->flags & F_PERM)) free(f);
	return r;
}

/* Standard output as a FILE, for the code that inspects or closes it
 * (gnulib's `close_stdout`: `__fpending`, `fclose`); the program's own
 * writes to it are the output model and never reach it. Unbuffered, so a
 * write through musl's code goes straight to `__stdio_write`. musl's
 * `stdout.c` is not taken: its writer asks the terminal's size with a
 * system call. */
#undef stdout
static unsigned char stdout_buf[UNGET];
hidden FILE __stdout_FILE = {
	.buf = stdout_buf + UNGET,
	.buf_size = 0,
	.fd = 1,
	.flags = F_PERM | F_NORD,
	.lbf = -1,
	.write = __stdio_write,
	.seek = __stdio_seek,
	.close = __stdio_close,
	.lock = -1,
};
FILE *const stdout = &__stdout_FILE;
FILE *volatile __stdout_used = &__stdout_FILE;

/* A stream opened again: with a name, on that file; without one (gnulib's
 * `xfreopen (NULL, "rb", stdin)` for binary mode), the same descriptor in
 * the new mode, which changes nothing on these descriptors. */
FILE *freopen(const char *restrict name, const char *restrict mode, FILE *restrict f)
{
	if (!name) {
		f->flags = (f->flags & F_PERM) | mode_file_flags(mode);
		return f;
	}
	int fd = open(name, mode_open_flags(mode));
	if (fd < 0) {
		fclose(f);
		return 0;
	}
	close(f->fd);
	f->fd = fd;
	f->flags = (f->flags & F_PERM) | mode_file_flags(mode);
	f->rpos = f->rend = 0;
	f->wpos = f->wbase = f->wend = 0;
	return f;
}

/* Functions registered with atexit, run by `__walkdown_run_atexit` after
 * main returns (the start function calls it when the program registers
 * any). A call of `exit` inside the program ends the run at once without
 * running them: `exit` is a model every engine treats as the end of a
 * run. */
#define WD_MAX_ATEXIT 32
static void (*at_exit[WD_MAX_ATEXIT])(void);
static int n_at_exit;

int atexit(void (*fn)(void))
{
	if (n_at_exit == WD_MAX_ATEXIT) return -1;
	at_exit[n_at_exit++] = fn;
	return 0;
}

void __walkdown_run_atexit(void)
{
	while (n_at_exit) at_exit[--n_at_exit]();
}
