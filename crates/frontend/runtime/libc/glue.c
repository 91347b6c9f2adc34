/* glibc's entry points, mapped onto musl's code, for programs compiled
 * against glibc's headers (crates/frontend/build.rs compiles this file
 * with musl's internal headers and links it into the C library walkdown
 * runs as code).
 *
 * glibc's headers turn some calls into names of their own: `sscanf` into
 * `__isoc99_sscanf` (C99 scanf semantics), `strtol` into
 * `__strtol_internal` in old code, and with _FORTIFY_SOURCE `sprintf`,
 * `memcpy`, ... into `_chk` variants that check the destination's size.
 * Each is defined here with glibc's behaviour on top of musl's function;
 * a failed size check ends the run the way glibc's `__chk_fail` does, by
 * `abort`. `isspace` and the other <ctype.h> macros read glibc's tables
 * through `__ctype_b_loc`, which musl already provides in glibc's layout. */

#include "pthread_impl.h"
#include "libc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <wchar.h>
#include <errno.h>
#include <fcntl.h>

/* The one thread: its errno and its locale (musl's C locale). */
struct pthread __walkdown_thread = {
	.self = &__walkdown_thread,
	.locale = &__libc.global_locale,
};

/* musl locks a FILE only when its lock is not negative; the string streams
 * sprintf and sscanf use are never locked, and walkdown runs one thread. */
int __lockfile(FILE *f) { (void)f; return 0; }
void __unlockfile(FILE *f) { (void)f; }

/* glibc's case-mapping tables, indexable from -128 to 255 as glibc's are:
 * EOF (-1) maps to itself, -128..-2 to the byte's unsigned value (c + 256),
 * the letters to their other case, every other byte to itself. */
#define WD_LOWER(c) ((c) < -1 ? (c) + 256 : ((c) >= 'A' && (c) <= 'Z') ? (c) + 32 : (c))
#define WD_UPPER(c) ((c) < -1 ? (c) + 256 : ((c) >= 'a' && (c) <= 'z') ? (c) - 32 : (c))
#define WD_ROW(F, c) F(c), F(c + 1), F(c + 2), F(c + 3), F(c + 4), F(c + 5), F(c + 6), F(c + 7), \
	F(c + 8), F(c + 9), F(c + 10), F(c + 11), F(c + 12), F(c + 13), F(c + 14), F(c + 15)
#define WD_TABLE(F) \
	WD_ROW(F, -128), WD_ROW(F, -112), WD_ROW(F, -96), WD_ROW(F, -80), \
	WD_ROW(F, -64), WD_ROW(F, -48), WD_ROW(F, -32), WD_ROW(F, -16), \
	WD_ROW(F, 0), WD_ROW(F, 16), WD_ROW(F, 32), WD_ROW(F, 48), \
	WD_ROW(F, 64), WD_ROW(F, 80), WD_ROW(F, 96), WD_ROW(F, 112), \
	WD_ROW(F, 128), WD_ROW(F, 144), WD_ROW(F, 160), WD_ROW(F, 176), \
	WD_ROW(F, 192), WD_ROW(F, 208), WD_ROW(F, 224), WD_ROW(F, 240)

static const int32_t lower_table[384] = { WD_TABLE(WD_LOWER) };
static const int32_t upper_table[384] = { WD_TABLE(WD_UPPER) };
static const int32_t *const lower_ptr = lower_table + 128;
static const int32_t *const upper_ptr = upper_table + 128;

const int32_t **__ctype_tolower_loc(void) { return (void *)&lower_ptr; }
const int32_t **__ctype_toupper_loc(void) { return (void *)&upper_ptr; }

/* musl's internal locks and allocator entry points, for one thread and
 * walkdown's allocator (the hand model). */
void __lock(volatile int *l) { (void)l; }
void __unlock(volatile int *l) { (void)l; }
void *__libc_malloc(size_t n) { return malloc(n); }
void *__libc_calloc(size_t m, size_t n) { return calloc(m, n); }
void __libc_free(void *p) { free(p); }
void __stdio_exit_needed(void) {}

int __isoc99_sscanf(const char *restrict s, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vsscanf(s, fmt, ap);
	va_end(ap);
	return r;
}

int __isoc99_vsscanf(const char *restrict s, const char *restrict fmt, va_list ap)
{
	return vsscanf(s, fmt, ap);
}

int __isoc99_swscanf(const wchar_t *restrict s, const wchar_t *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vswscanf(s, fmt, ap);
	va_end(ap);
	return r;
}

long __strtol_internal(const char *restrict s, char **restrict end, int base, int group)
{
	(void)group;
	return strtol(s, end, base);
}

unsigned long __strtoul_internal(const char *restrict s, char **restrict end, int base, int group)
{
	(void)group;
	return strtoul(s, end, base);
}

long long __strtoll_internal(const char *restrict s, char **restrict end, int base, int group)
{
	(void)group;
	return strtoll(s, end, base);
}

unsigned long long __strtoull_internal(const char *restrict s, char **restrict end, int base, int group)
{
	(void)group;
	return strtoull(s, end, base);
}

double __strtod_internal(const char *restrict s, char **restrict end, int group)
{
	(void)group;
	return strtod(s, end);
}

/* glibc's __chk_fail prints "*** buffer overflow detected ***" and aborts. */
static _Noreturn void chk_fail(void)
{
	abort();
}

int __vsnprintf_chk(char *restrict s, size_t n, int flag, size_t slen, const char *restrict fmt, va_list ap)
{
	(void)flag;
	if (n > slen) chk_fail();
	return vsnprintf(s, n, fmt, ap);
}

int __snprintf_chk(char *restrict s, size_t n, int flag, size_t slen, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vsnprintf_chk(s, n, flag, slen, fmt, ap);
	va_end(ap);
	return r;
}

int __vsprintf_chk(char *restrict s, int flag, size_t slen, const char *restrict fmt, va_list ap)
{
	(void)flag;
	if (slen == 0) chk_fail();
	int r = vsnprintf(s, slen, fmt, ap);
	if (r >= 0 && (size_t)r >= slen) chk_fail();
	return r;
}

int __sprintf_chk(char *restrict s, int flag, size_t slen, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vsprintf_chk(s, flag, slen, fmt, ap);
	va_end(ap);
	return r;
}

void *__memcpy_chk(void *restrict d, const void *restrict s, size_t n, size_t dlen)
{
	if (n > dlen) chk_fail();
	return memcpy(d, s, n);
}

void *__memmove_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen) chk_fail();
	return memmove(d, s, n);
}

void *__memset_chk(void *d, int c, size_t n, size_t dlen)
{
	if (n > dlen) chk_fail();
	return memset(d, c, n);
}

char *__strcpy_chk(char *restrict d, const char *restrict s, size_t dlen)
{
	if (strlen(s) >= dlen) chk_fail();
	return strcpy(d, s);
}

char *__stpcpy_chk(char *restrict d, const char *restrict s, size_t dlen)
{
	if (strlen(s) >= dlen) chk_fail();
	return stpcpy(d, s);
}

char *__strncpy_chk(char *restrict d, const char *restrict s, size_t n, size_t dlen)
{
	if (n > dlen) chk_fail();
	return strncpy(d, s, n);
}

char *__strcat_chk(char *restrict d, const char *restrict s, size_t dlen)
{
	if (strlen(d) + strlen(s) >= dlen) chk_fail();
	return strcat(d, s);
}

char *__strncat_chk(char *restrict d, const char *restrict s, size_t n, size_t dlen)
{
	size_t k = strnlen(s, n);
	if (strlen(d) + k >= dlen) chk_fail();
	return strncat(d, s, n);
}

/* Every system call musl would make with assembly (see syscall_arch.h):
 * not available. */
long __walkdown_syscall(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	(void)n, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6;
	return -ENOSYS;
}

/* glibc's large-file names. */
FILE *fopen64(const char *restrict name, const char *restrict mode) { return fopen(name, mode); }
int open64(const char *name, int flags, ...) { return open(name, flags); }

/* glibc's C99 names of the stream scanners, as plain variadic functions
 * that pass their arguments on (as __isoc99_sscanf above). */
int __isoc99_scanf(const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfscanf(stdin, fmt, ap);
	va_end(ap);
	return r;
}

int __isoc99_fscanf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfscanf(f, fmt, ap);
	va_end(ap);
	return r;
}

int __isoc99_vscanf(const char *restrict fmt, va_list ap)
{
	return vfscanf(stdin, fmt, ap);
}

int __isoc99_vfscanf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	return vfscanf(f, fmt, ap);
}

/* Byte loops for the string functions musl reads a word at a time (see
 * REPLACED in build.rs). */
char *__strchrnul(const char *s, int c)
{
	while (*s && *(const unsigned char *)s != (unsigned char)c) s++;
	return (char *)s;
}

char *strchrnul(const char *s, int c) { return __strchrnul(s, c); }

char *__stpcpy(char *restrict d, const char *restrict s)
{
	while ((*d = *s)) d++, s++;
	return d;
}

char *stpcpy(char *restrict d, const char *restrict s) { return __stpcpy(d, s); }

char *__stpncpy(char *restrict d, const char *restrict s, size_t n)
{
	for (; n && (*d = *s); n--) d++, s++;
	char *end = d;
	for (; n; n--) *d++ = 0;
	return end;
}

char *stpncpy(char *restrict d, const char *restrict s, size_t n) { return __stpncpy(d, s, n); }

size_t strlcpy(char *d, const char *s, size_t n)
{
	size_t len = 0;
	while (s[len]) len++;
	if (n) {
		size_t k = len < n - 1 ? len : n - 1;
		for (size_t i = 0; i < k; i++) d[i] = s[i];
		d[k] = 0;
	}
	return len;
}

void *memccpy(void *restrict dest, const void *restrict src, int c, size_t n)
{
	unsigned char *d = dest;
	const unsigned char *s = src;
	for (; n; n--) {
		if ((*d++ = *s++) == (unsigned char)c) return d;
	}
	return 0;
}

/* glibc's `error` and `error_at_line` (GNU programs and gnulib call them;
 * musl has neither). The message goes to standard error, which has no
 * effect in the model, so only what the caller can observe is kept: the
 * count of messages, and the exit when `status` is not 0. */
unsigned int error_message_count;
int error_one_per_line;
void (*error_print_progname)(void);

void error(int status, int errnum, const char *fmt, ...)
{
	(void)errnum, (void)fmt;
	++error_message_count;
	if (status) exit(status);
}

void error_at_line(int status, int errnum, const char *file, unsigned int line, const char *fmt, ...)
{
	(void)errnum, (void)file, (void)line, (void)fmt;
	++error_message_count;
	if (status) exit(status);
}
