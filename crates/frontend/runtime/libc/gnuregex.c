/* glibc's GNU regex interface (re_compile_pattern, re_search, re_match),
 * on top of musl's POSIX regcomp/regexec, for programs compiled against
 * glibc's <regex.h>: GNU tools call it directly (coreutils' `expr :` and
 * `nl -b p`, and gnulib code generally), and musl has only the POSIX one.
 *
 * The program's `struct re_pattern_buffer` is glibc's, which musl's headers
 * do not declare: `struct gnu_buffer` below repeats its LP64 layout (the
 * fields this file touches, at glibc's offsets; coreutils built with gcc
 * and glibc reads them there). The program frees the pattern with
 * `regfree` on that same struct, and `regfree` is musl's, which finds the
 * compiled automaton in musl's `regex_t` at offset 8: so the automaton is
 * kept there, in the place of glibc's `allocated` field (which only
 * glibc's own code reads), and a musl `regex_t` is rebuilt around it for
 * each match.
 *
 * What is kept of GNU's semantics, and what is not:
 * - the syntax bits of `re_syntax_options` choose basic or extended syntax
 *   (RE_NO_BK_PARENS: `(` groups unescaped, as in extended syntax) and case
 *   folding (RE_ICASE); the other bits are GNU's fine print and musl's
 *   basic syntax already takes `\+`, `\?` and `\|`;
 * - matching is POSIX leftmost-longest, as GNU's is for these syntaxes;
 * - `^` and `$` match at the ends of the string only: GNU's
 *   `newline_anchor` (also at newlines) would need musl's REG_NEWLINE,
 *   which also keeps `.` from matching a newline, as GNU's syntaxes do not;
 * - `re_match` matches at `start` only: musl's leftmost match starts there
 *   exactly when some match does;
 * - `re_search` tries start positions from `start` to `start + range`
 *   upwards (a negative range, searching backwards, is one GNU's callers
 *   rarely use: it is answered by scanning the same positions downwards);
 * - registers are filled as glibc does with REGS_UNALLOCATED: arrays of
 *   `re_nsub + 1` offsets from malloc, -1 for a group that did not take
 *   part. */

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* glibc's syntax bits this file reads (glibc's <regex.h> values). */
#define GNU_RE_NO_BK_PARENS 8192UL
#define GNU_RE_ICASE 4194304UL
#define GNU_RE_NO_SUB 33554432UL

/* glibc's `struct re_pattern_buffer`, LP64. */
struct gnu_buffer {
	void *dfa;
	void *automaton; /* glibc's `allocated`; musl's `__opaque` */
	unsigned long used;
	unsigned long syntax;
	char *fastmap;
	unsigned char *translate;
	size_t re_nsub;
	unsigned flags; /* can_be_null:1, regs_allocated:2, fastmap_accurate:1,
	                   no_sub:1, not_bol:1, not_eol:1, newline_anchor:1 */
};

/* glibc's `struct re_registers` (offsets as int, glibc's regoff_t). */
struct gnu_registers {
	unsigned num_regs;
	int *start;
	int *end;
};

#define FLAG_NO_SUB (1u << 4)
#define FLAG_NOT_BOL (1u << 5)
#define FLAG_NOT_EOL (1u << 6)

unsigned long re_syntax_options;

unsigned long re_set_syntax(unsigned long syntax)
{
	unsigned long old = re_syntax_options;
	re_syntax_options = syntax;
	return old;
}

static char error_text[128];

const char *re_compile_pattern(const char *pattern, size_t length, struct gnu_buffer *b)
{
	char *p = malloc(length + 1);
	if (!p)
		return "Memory exhausted";
	memcpy(p, pattern, length);
	p[length] = 0;
	int cflags = 0;
	if (re_syntax_options & GNU_RE_NO_BK_PARENS)
		cflags |= REG_EXTENDED;
	if (re_syntax_options & GNU_RE_ICASE)
		cflags |= REG_ICASE;
	if (b->automaton) {
		regex_t old = { .__opaque = b->automaton };
		regfree(&old);
		b->automaton = 0;
	}
	regex_t r;
	int rc = regcomp(&r, p, cflags);
	free(p);
	if (rc != 0) {
		regerror(rc, &r, error_text, sizeof error_text);
		return error_text;
	}
	b->automaton = r.__opaque;
	b->used = sizeof(regex_t);
	b->syntax = re_syntax_options;
	b->re_nsub = r.re_nsub;
	b->flags = (b->flags & ~FLAG_NO_SUB) | ((re_syntax_options & GNU_RE_NO_SUB) ? FLAG_NO_SUB : 0);
	return 0;
}

/* Fills `regs` from musl's matches, offsets shifted by `base`. */
static void fill_registers(const struct gnu_buffer *b, struct gnu_registers *regs,
                           const regmatch_t *m, size_t n, int base)
{
	if (!regs || (b->flags & FLAG_NO_SUB))
		return;
	unsigned need = (unsigned)n;
	if (regs->num_regs < need || !regs->start) {
		regs->start = realloc(regs->start, need * sizeof(int));
		regs->end = realloc(regs->end, need * sizeof(int));
		regs->num_regs = need;
	}
	for (unsigned i = 0; i < regs->num_regs; i++) {
		int taken = i < n && m[i].rm_so >= 0;
		regs->start[i] = taken ? (int)m[i].rm_so + base : -1;
		regs->end[i] = taken ? (int)m[i].rm_eo + base : -1;
	}
}

/* The match of `b` in string[start..length) that starts leftmost, with its
 * groups in `m`; -1 when there is none, -2 when memory runs out. */
static int match_from(const struct gnu_buffer *b, const char *string, int length, int start,
                      regmatch_t *m, size_t n)
{
	if (!b->automaton || start < 0 || start > length)
		return -1;
	regex_t r = { .re_nsub = b->re_nsub, .__opaque = b->automaton };
	char *s = malloc((size_t)(length - start) + 1);
	if (!s)
		return -2;
	memcpy(s, string + start, (size_t)(length - start));
	s[length - start] = 0;
	int eflags = 0;
	if ((b->flags & FLAG_NOT_BOL) || start > 0)
		eflags |= REG_NOTBOL;
	if (b->flags & FLAG_NOT_EOL)
		eflags |= REG_NOTEOL;
	int rc = regexec(&r, s, n, m, eflags);
	free(s);
	return rc == 0 ? (int)m[0].rm_so : -1;
}

int re_match(struct gnu_buffer *b, const char *string, int length, int start, struct gnu_registers *regs)
{
	size_t n = b->re_nsub + 1;
	regmatch_t *m = malloc(n * sizeof(regmatch_t));
	if (!m)
		return -2;
	int at = match_from(b, string, length, start, m, n);
	int r = at == 0 ? (int)m[0].rm_eo : (at == -2 ? -2 : -1);
	if (r >= 0)
		fill_registers(b, regs, m, n, start);
	free(m);
	return r;
}

int re_search(struct gnu_buffer *b, const char *string, int length, int start, int range,
              struct gnu_registers *regs)
{
	size_t n = b->re_nsub + 1;
	regmatch_t *m = malloc(n * sizeof(regmatch_t));
	if (!m)
		return -2;
	int found = -1, base = 0;
	if (range >= 0) {
		/* The leftmost match from `start` is the first start position that
		 * matches; it counts when it is within the range. */
		int at = match_from(b, string, length, start, m, n);
		if (at == -2)
			found = -2;
		else if (at >= 0 && at <= range)
			found = start + at, base = start;
	} else {
		for (int pos = start; pos >= 0 && pos >= start + range && found == -1; pos--) {
			int at = match_from(b, string, length, pos, m, n);
			if (at == -2)
				found = -2;
			else if (at == 0)
				found = pos, base = pos;
		}
	}
	if (found >= 0)
		fill_registers(b, regs, m, n, base);
	free(m);
	return found;
}
