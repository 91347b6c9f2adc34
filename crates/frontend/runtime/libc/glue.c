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
#include "stdio_impl.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* The one thread: its errno and its locale (musl's C locale). */
struct pthread __walkdown_thread = {
	.self = &__walkdown_thread,
	.locale = &__libc.global_locale,
};

/* musl locks a FILE only when its lock is not negative; the string streams
 * sprintf and sscanf use are never locked, and walkdown runs one thread. */
int __lockfile(FILE *f) { (void)f; return 0; }
void __unlockfile(FILE *f) { (void)f; }

/* musl's __fwritex (src/stdio/fwrite.c, verbatim), through which vfprintf
 * writes every piece of output; fwrite.c itself is left out (its fwrite
 * would take glibc's FILE pointers, `stdout`, for musl's). Without it each
 * piece became an unknown call: sprintf returned the right count and wrote
 * nothing (found by crates/walkdown/tests/libc_glibc.rs). */
size_t __fwritex(const unsigned char *restrict s, size_t l, FILE *restrict f)
{
	size_t i=0;

	if (!f->wend && __towrite(f)) return 0;

	if (l > f->wend - f->wpos) return f->write(f, s, l);

	if (f->lbf >= 0) {
		/* Match /^(.*\n|)/ */
		for (i=l; i && s[i-1] != '\n'; i--);
		if (i) {
			size_t n = f->write(f, s, i);
			if (n < i) return n;
			s += i;
			l -= i;
		}
	}

	memcpy(f->wpos, s, l);
	f->wpos += l;
	return l+i;
}

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
