/* The fixed part of the programs tests/libc_glibc.rs generates: the case
 * tables, generated with a fixed seed, go in at the marker below.
 *
 * Every case computes its results and spells them into `out` with the
 * helpers below, which use no library function (strcmp and strlen are
 * hand models), so a result's text does not depend on the library under
 * test. Built with -DPRINT (gcc, glibc) the program prints one line per
 * case; those lines become the table `expected`, and the second program
 * (run by walkdown's interpreter on musl's code) compares every case with
 * it:
 *   inputs (-1, _): every case; exit status = number of cases that differ
 *                   (capped at 100)
 *   inputs (k, -1): case k only; exit status 1 when it differs
 *   inputs (k, j):  case k only; exit status = byte j of its result text */

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

static char out[8192];
static int pos;

static void pc(char c)
{
	if (pos < (int)sizeof out - 1)
		out[pos++] = c;
	out[pos] = 0;
}

static void ps(const char *s)
{
	while (*s)
		pc(*s++);
}

static void pu(u64 v)
{
	char d[24];
	int n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		pc(d[--n]);
}

static void pi(long long v)
{
	if (v < 0) {
		pc('-');
		pu(-(u64)v);
	} else
		pu((u64)v);
}

static void px(u64 v)
{
	int k;
	ps("0x");
	for (k = 60; k > 0 && !(v >> k); k -= 4)
		;
	for (; k >= 0; k -= 4)
		pc("0123456789abcdef"[(v >> k) & 15]);
}

/* Bytes, quoted; anything but printable ASCII as \xx. */
static void pb(const char *s, long n)
{
	long i;
	pc('"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 32 || c >= 127 || c == '"' || c == '\\') {
			pc('\\');
			pc("0123456789abcdef"[c >> 4]);
			pc("0123456789abcdef"[c & 15]);
		} else
			pc((char)c);
	}
	pc('"');
}

static void pstr(const char *s, long max)
{
	long n = 0;
	while (n < max && s[n])
		n++;
	pb(s, n);
}

static double dbl(u64 bits)
{
	union { u64 u; double d; } x;
	x.u = bits;
	return x.d;
}

static void pdbl(double d)
{
	union { u64 u; double d; } x;
	x.d = d;
	px(x.u);
}

static void pflt(float f)
{
	union { unsigned u; float f; } x;
	x.f = f;
	px(x.u);
}

/* ctype: glibc's macros (the table __ctype_b_loc returns, raw) and the
 * functions, over -128..255. */
static void case_ctype_macro(int c)
{
	ps("mask=");
	px((unsigned short)(*__ctype_b_loc())[c]);
	ps(" isalnum..isxdigit=");
	pc('0' + !!isalnum(c)); pc('0' + !!isalpha(c)); pc('0' + !!isblank(c));
	pc('0' + !!iscntrl(c)); pc('0' + !!isdigit(c)); pc('0' + !!isgraph(c));
	pc('0' + !!islower(c)); pc('0' + !!isprint(c)); pc('0' + !!ispunct(c));
	pc('0' + !!isspace(c)); pc('0' + !!isupper(c)); pc('0' + !!isxdigit(c));
	ps(" lower=");
	pi((*__ctype_tolower_loc())[c]);
	ps(" upper=");
	pi((*__ctype_toupper_loc())[c]);
}

static void case_ctype_function(int c)
{
	ps("isalnum..isxdigit=");
	pc('0' + !!(isalnum)(c)); pc('0' + !!(isalpha)(c)); pc('0' + !!(isblank)(c));
	pc('0' + !!(iscntrl)(c)); pc('0' + !!(isdigit)(c)); pc('0' + !!(isgraph)(c));
	pc('0' + !!(islower)(c)); pc('0' + !!(isprint)(c)); pc('0' + !!(ispunct)(c));
	pc('0' + !!(isspace)(c)); pc('0' + !!(isupper)(c)); pc('0' + !!(isxdigit)(c));
	ps(" tolower=");
	pi((tolower)(c));
	ps(" toupper=");
	pi((toupper)(c));
}

/* strto* and ato*. */
struct scase { int fn; int base; const char *s; };

static void case_strto(const struct scase *c)
{
	char *end = (char *)1;
	errno = 0;
	switch (c->fn) {
	case 0: pi(strtol(c->s, &end, c->base)); break;
	case 1: pu(strtoul(c->s, &end, c->base)); break;
	case 2: pi(strtoll(c->s, &end, c->base)); break;
	case 3: pu(strtoull(c->s, &end, c->base)); break;
#ifndef NO_FLOATSCAN
	case 4: pdbl(strtod(c->s, &end)); break;
#endif
	case 5: pi(atoi(c->s)); end = 0; break;
	case 6: pi(atol(c->s)); end = 0; break;
	case 7: pi(atoll(c->s)); end = 0; break;
#ifndef NO_FLOATSCAN
	case 8: pdbl(atof(c->s)); end = 0; break;
#endif
	}
	if (end) {
		ps(" end=");
		pi(end - c->s);
		/* No conversion: POSIX lets errno be EINVAL (musl) or not (glibc). */
		if (end != c->s) {
			ps(" errno=");
			pi(errno);
		}
	}
}

/* The printf family into strings. kind: the argument's type. star: 1 the
 * width, 2 the precision, 3 both come as arguments. n < 0: sprintf;
 * n == 0 with nullbuf: snprintf(NULL, 0, ...). */
enum { K_INT, K_UINT, K_LONG, K_ULONG, K_LLONG, K_ULLONG, K_SIZE, K_INTMAX, K_UINTMAX, K_PTRDIFF, K_DOUBLE, K_STR, K_NONE };

struct pcase { const char *fmt; int kind; int star, sw, sp; int n, nullbuf; u64 v; const char *s; };

static char buf[2048];

#define PF(a) (c->n < 0 ? (c->star == 0 ? sprintf(buf, c->fmt, a) : c->star == 1 ? sprintf(buf, c->fmt, c->sw, a) \
	: c->star == 2 ? sprintf(buf, c->fmt, c->sp, a) : sprintf(buf, c->fmt, c->sw, c->sp, a)) \
	: (c->star == 0 ? snprintf(b, (size_t)c->n, c->fmt, a) : c->star == 1 ? snprintf(b, (size_t)c->n, c->fmt, c->sw, a) \
	: c->star == 2 ? snprintf(b, (size_t)c->n, c->fmt, c->sp, a) : snprintf(b, (size_t)c->n, c->fmt, c->sw, c->sp, a)))

static void case_printf(const struct pcase *c)
{
	int r = 0;
	char *b = c->nullbuf ? NULL : buf;
	memset(buf, 'Z', sizeof buf);
	buf[sizeof buf - 1] = 0;
	switch (c->kind) {
	case K_INT: r = PF((int)c->v); break;
	case K_UINT: r = PF((unsigned)c->v); break;
	case K_LONG: r = PF((long)c->v); break;
	case K_ULONG: r = PF((unsigned long)c->v); break;
	case K_LLONG: r = PF((long long)c->v); break;
	case K_ULLONG: r = PF((unsigned long long)c->v); break;
	case K_SIZE: r = PF((size_t)c->v); break;
	case K_INTMAX: r = PF((intmax_t)c->v); break;
	case K_UINTMAX: r = PF((uintmax_t)c->v); break;
	case K_PTRDIFF: r = PF((ptrdiff_t)c->v); break;
	case K_DOUBLE: r = PF(dbl(c->v)); break;
	case K_STR: r = PF(c->s); break;
	case K_NONE: r = PF(0); break;
	}
	ps("ret=");
	pi(r);
	ps(" buf=");
	/* The written bytes up to the first NUL, or all of the buffer's
	 * share when there is none (snprintf must end it with one). */
	{
		long lim = c->n < 0 ? (long)sizeof buf - 1 : c->n;
		long i;
		for (i = 0; i < lim && buf[i]; i++)
			;
		pb(buf, i);
		if (i == lim && lim > 0)
			ps(" unterminated");
	}
}

/* sscanf: up to two conversions into slots, each read back by its kind. */
enum { S_INT, S_UINT, S_LONG, S_ULONG, S_LLONG, S_SCHAR, S_SHORT, S_STR, S_CHARS, S_FLOAT, S_DOUBLE, S_N, S_SKIP };

union slot { int i; unsigned u; long l; unsigned long ul; long long ll; signed char c; short h; char s[64]; float f; double d; };

struct sscase { const char *in; const char *fmt; int k0, k1; };

static void pslot(int k, const union slot *s)
{
	pc(' ');
	switch (k) {
	case S_INT: case S_N: pi(s->i); break;
	case S_UINT: pu(s->u); break;
	case S_LONG: pi(s->l); break;
	case S_ULONG: pu(s->ul); break;
	case S_LLONG: pi(s->ll); break;
	case S_SCHAR: pi(s->c); break;
	case S_SHORT: pi(s->h); break;
	case S_STR: case S_CHARS: pstr(s->s, 63); break;
	case S_FLOAT: pflt(s->f); break;
	case S_DOUBLE: pdbl(s->d); break;
	case S_SKIP: ps("-"); break;
	}
}

static void case_sscanf(const struct sscase *c)
{
	union slot a, b;
	int r;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
#ifdef NO_FLOATSCAN
	/* sscanf links musl's __floatscan, which walkdown does not lower yet
	 * (tests/libc_glibc.rs, FLOATSCAN). */
	r = -2;
	(void)c;
#else
	r = sscanf(c->in, c->fmt, (void *)&a, (void *)&b);
#endif
	ps("ret=");
	pi(r);
	pslot(c->k0, &a);
	pslot(c->k1, &b);
}

/* qsort, then bsearch for each key. */
struct qcase { int n; const int *a; int nkeys; const int *keys; };

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

static void case_qsort(const struct qcase *c)
{
	int a[64];
	int i;
	for (i = 0; i < c->n; i++)
		a[i] = c->a[i];
	qsort(a, (size_t)c->n, sizeof a[0], cmp_int);
	ps("sorted=");
	for (i = 0; i < c->n; i++) {
		pi(a[i]);
		pc(',');
	}
	ps(" found=");
	for (i = 0; i < c->nkeys; i++) {
		/* Which of equal elements bsearch returns is unspecified: the
		 * value it points at is compared, not its index. */
		const int *p = bsearch(&c->keys[i], a, (size_t)c->n, sizeof a[0], cmp_int);
		if (p) {
			if (p < a || p >= a + c->n)
				ps("outside");
			else
				pi(*p);
		} else
			pc('n');
		pc(',');
	}
}

/* The cases' tables go here. */

#define N_CTYPE 384
#define N_STRTO (int)(sizeof strto_cases / sizeof strto_cases[0])
#define N_PRINTF (int)(sizeof printf_cases / sizeof printf_cases[0])
#define N_SSCANF (int)(sizeof sscanf_cases / sizeof sscanf_cases[0])
#define N_QSORT (int)(sizeof qsort_cases / sizeof qsort_cases[0])
#define N_CASES (2 * N_CTYPE + N_STRTO + N_PRINTF + N_SSCANF + N_QSORT)

static void run_case(int k)
{
	pos = 0;
	out[0] = 0;
	if (k < N_CTYPE) {
		case_ctype_macro(k - 128);
		return;
	}
	k -= N_CTYPE;
	if (k < N_CTYPE) {
		case_ctype_function(k - 128);
		return;
	}
	k -= N_CTYPE;
	if (k < N_STRTO) {
		case_strto(&strto_cases[k]);
		return;
	}
	k -= N_STRTO;
	if (k < N_PRINTF) {
		case_printf(&printf_cases[k]);
		return;
	}
	k -= N_PRINTF;
	if (k < N_SSCANF) {
		case_sscanf(&sscanf_cases[k]);
		return;
	}
	k -= N_SSCANF;
	case_qsort(&qsort_cases[k]);
}

#ifdef PRINT
int main(void)
{
	int k;
	for (k = 0; k < N_CASES; k++) {
		run_case(k);
		printf("%s\n", out);
	}
	return 0;
}
#else
extern int __VERIFIER_nondet_int(void);

int main(void)
{
	int k = __VERIFIER_nondet_int();
	int j = __VERIFIER_nondet_int();
	int bad = 0;
	if (k < 0) {
		for (k = 0; k < N_CASES; k++) {
			run_case(k);
			if (strcmp(out, expected[k]) != 0 && bad < 100)
				bad++;
		}
		return bad;
	}
	if (k >= N_CASES)
		return 255;
	run_case(k);
	if (j < 0)
		return strcmp(out, expected[k]) != 0;
	return j < (int)strlen(out) ? (unsigned char)out[j] : 0;
}
#endif
