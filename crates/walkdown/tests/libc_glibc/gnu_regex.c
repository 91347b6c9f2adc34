/* glibc's GNU regex interface (re_compile_pattern, re_match, re_search),
 * as GNU tools call it, on a fixed table of cases: tests/libc_gnu_regex.rs
 * builds this file with gcc against glibc (-DPRINT: one result line per
 * case) and then runs it in walkdown's interpreter on
 * runtime/libc/gnuregex.c over musl's regex engine, with glibc's lines as
 * the table `expected` (see EXPECTED below).
 *
 * Each case: the syntax (coreutils' expr and nl use POSIX basic minus two
 * GNU checks; extended and case-folding syntaxes too), a pattern, a
 * subject, and a call: re_match at a start, or re_search from a start over
 * a range. A result line holds whether the pattern compiled (not the
 * message: its words are each library's own), re_nsub, the return value
 * and every register. The text is spelled without library calls, so it
 * does not depend on the library under test. */

#define _GNU_SOURCE 1
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static char out[512];
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

static void pi(long v)
{
	char b[24];
	int n = 0;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	if (v < 0)
		pc('-');
	do
		b[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	while (n)
		pc(b[--n]);
}

enum syntax { BASIC, EXTENDED, ICASE };
enum call { MATCH, SEARCH };

struct rcase {
	enum syntax syntax;
	const char *pattern;
	const char *subject;
	enum call call;
	int start, range;
};

static const struct rcase cases[] = {
	{BASIC, "abc", "abc", MATCH, 0, 0},
	{BASIC, "abc", "xabc", MATCH, 0, 0},
	{BASIC, "abc", "xabc", SEARCH, 0, 4},
	{BASIC, "abc", "xabc", SEARCH, 0, 0},
	{BASIC, "abc", "xxabc", SEARCH, 1, 1},
	{BASIC, "a*", "aaab", MATCH, 0, 0},
	{BASIC, "a*", "baaa", MATCH, 1, 0},
	{BASIC, "a\\(b*\\)c", "abbbcd", MATCH, 0, 0},
	{BASIC, "\\(a\\)\\(b\\)\\(c\\)", "abc", MATCH, 0, 0},
	{BASIC, "\\(x\\)*y", "y", MATCH, 0, 0},
	{BASIC, "a\\(b.\\)", "abcd", MATCH, 0, 0},
	{BASIC, "[0-9][0-9]*", "12ab", MATCH, 0, 0},
	{BASIC, "[[:alpha:]]*", "Abc9", MATCH, 0, 0},
	{BASIC, "[^a]b", "cb", MATCH, 0, 0},
	{BASIC, "^a", "ba", SEARCH, 0, 2},
	{BASIC, "a$", "ba", SEARCH, 0, 2},
	{BASIC, "a\\{2\\}", "aaa", MATCH, 0, 0},
	{BASIC, "a\\{2,3\\}", "aaaa", MATCH, 0, 0},
	{BASIC, "\\(ab\\)\\1", "abab", MATCH, 0, 0},
	{BASIC, "a\\+", "aab", MATCH, 0, 0},
	{BASIC, "ab\\?c", "ac", MATCH, 0, 0},
	{BASIC, "cat\\|dog", "dog", MATCH, 0, 0},
	{BASIC, ".*", "", MATCH, 0, 0},
	{BASIC, "x", "", SEARCH, 0, 0},
	{BASIC, "b", "abcb", SEARCH, 2, 1},
	{BASIC, "a\\(", "a", MATCH, 0, 0},
	{BASIC, "[a", "a", MATCH, 0, 0},
	{BASIC, "a\\{1", "a", MATCH, 0, 0},
	{BASIC, "\\(a\\)\\|b", "b", MATCH, 0, 0},
	{BASIC, "a.c", "a\nc", MATCH, 0, 0},
	{EXTENDED, "(a|b)+c", "ababc", MATCH, 0, 0},
	{EXTENDED, "x(y)?z", "xz", MATCH, 0, 0},
	{EXTENDED, "[0-9]+", "ab123", SEARCH, 0, 5},
	{EXTENDED, "(", "a", MATCH, 0, 0},
	{ICASE, "abc", "ABC", MATCH, 0, 0},
	{ICASE, "[a-c]*", "CbAd", MATCH, 0, 0},
};

#define N_CASES (int)(sizeof cases / sizeof cases[0])

static void run_case(int k)
{
	const struct rcase *c = &cases[k];
	struct re_pattern_buffer buf;
	struct re_registers regs;
	char fastmap[256];
	pos = 0;
	out[0] = 0;
	memset(&buf, 0, sizeof buf);
	buf.fastmap = fastmap;
	regs.num_regs = 0;
	regs.start = regs.end = NULL;
	/* expr's and nl's syntax: POSIX basic without two GNU checks. */
	reg_syntax_t basic = RE_SYNTAX_POSIX_BASIC & ~RE_CONTEXT_INVALID_DUP & ~RE_NO_EMPTY_RANGES;
	re_syntax_options = c->syntax == EXTENDED ? RE_SYNTAX_POSIX_EXTENDED
	                    : c->syntax == ICASE  ? basic | RE_ICASE
	                                          : basic;
	const char *err = re_compile_pattern(c->pattern, strlen(c->pattern), &buf);
	if (err) {
		ps("error");
		return;
	}
	ps("nsub=");
	pi((long)buf.re_nsub);
	buf.newline_anchor = 0;
	int len = (int)strlen(c->subject);
	int r = c->call == MATCH ? re_match(&buf, c->subject, len, c->start, &regs)
	                         : re_search(&buf, c->subject, len, c->start, c->range, &regs);
	ps(" r=");
	pi(r);
	if (r >= 0) {
		unsigned i;
		for (i = 0; i <= buf.re_nsub && i < regs.num_regs; i++) {
			pc(' ');
			pi(regs.start[i]);
			pc(',');
			pi(regs.end[i]);
		}
	}
	free(regs.start);
	free(regs.end);
	/* As expr does: glibc's regfree frees the fastmap too. */
	buf.fastmap = NULL;
	regfree(&buf);
}

#ifdef PRINT
#include <stdio.h>
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
/* EXPECTED: the test puts glibc's lines here, as `expected[]`. */
extern int __VERIFIER_nondet_int(void);

/* inputs k: exit status 1 when case k differs from glibc's line, 0 when
 * it agrees; inputs (k, j) with j >= 0: byte j of the case's text. */
int main(void)
{
	int k = __VERIFIER_nondet_int();
	int j = __VERIFIER_nondet_int();
	if (k < 0 || k >= N_CASES)
		return 255;
	run_case(k);
	if (j < 0)
		return strcmp(out, expected[k]) != 0;
	return j < (int)strlen(out) ? (unsigned char)out[j] : 0;
}
#endif
