/* Native checker of the long double runtime (f80.c) against gcc's x87
 * long double: every function on all combinations of a list of special
 * values and on random cases from a seed, bit-exact (all 80 bits, NaNs
 * included). Link it with f80.c compiled by gcc or by clang-14 (the code
 * walkdown lowers); build this file itself with gcc -O0 so that every
 * native operation is the plain x87 sequence gcc -O0 emits for C code,
 * and link -lm: rounding to integers is checked against glibc's floorl,
 * ceill, truncl, roundl and rintl.
 *
 *   f80_check [seed [random rounds]]   special values, sweeps, random cases
 *   f80_check --all-floats [step]       every float (every step-th) through
 *                                       from_float, to_float and to_double
 *   f80_check --vectors SEED N          prints N test vectors with gcc's results
 *                                       as C initializers
 *
 * Prints each mismatch (inputs and both results in hex, at most 20 per
 * operation), then one summary line per operation; exits 1 on any
 * mismatch. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;
typedef unsigned u32;

u64 __walkdown_f80_add(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be);
u64 __walkdown_f80_sub(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be);
u64 __walkdown_f80_mul(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be);
u64 __walkdown_f80_div(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be);
int __walkdown_f80_cmp(u64 am, u64 ae, u64 bm, u64 be);
u64 __walkdown_f80_from_double(u64 *se_out, u64 bits);
u64 __walkdown_f80_from_float(u64 *se_out, u32 bits);
u64 __walkdown_f80_to_double(u64 m, u64 se);
u32 __walkdown_f80_to_float(u64 m, u64 se);
u64 __walkdown_f80_from_int(u64 *se_out, u64 v, int is_signed);
u64 __walkdown_f80_to_int(u64 m, u64 se, int bits, int is_signed);
u64 __walkdown_f80_sqrt(u64 *se_out, u64 m, u64 se);
u64 __walkdown_f80_round_int(u64 *se_out, u64 m, u64 se, int mode);

/* The functions that yield a long double return its significand and store
 * its sign and exponent through their first parameter; the checker keeps
 * both in an array. */
static void ours_add(u64 *out, u64 am, u64 ae, u64 bm, u64 be) { out[0] = __walkdown_f80_add(&out[1], am, ae, bm, be); }
static void ours_sub(u64 *out, u64 am, u64 ae, u64 bm, u64 be) { out[0] = __walkdown_f80_sub(&out[1], am, ae, bm, be); }
static void ours_mul(u64 *out, u64 am, u64 ae, u64 bm, u64 be) { out[0] = __walkdown_f80_mul(&out[1], am, ae, bm, be); }
static void ours_div(u64 *out, u64 am, u64 ae, u64 bm, u64 be) { out[0] = __walkdown_f80_div(&out[1], am, ae, bm, be); }
static void ours_from_double(u64 *out, u64 bits) { out[0] = __walkdown_f80_from_double(&out[1], bits); }
static void ours_from_float(u64 *out, u32 bits) { out[0] = __walkdown_f80_from_float(&out[1], bits); }
static void ours_from_int(u64 *out, u64 v, int is_signed) { out[0] = __walkdown_f80_from_int(&out[1], v, is_signed); }
static void ours_sqrt(u64 *out, u64 m, u64 se) { out[0] = __walkdown_f80_sqrt(&out[1], m, se); }
static void ours_round_int(u64 *out, u64 m, u64 se, int mode) { out[0] = __walkdown_f80_round_int(&out[1], m, se, mode); }

/* ---- native long double <-> bits ---- */

static long double ld(u64 m, u64 se) {
    long double x;
    unsigned short s = (unsigned short)se;
    memset(&x, 0, sizeof x);
    memcpy(&x, &m, 8);
    memcpy((char *)&x + 8, &s, 2);
    return x;
}

static void bits(long double x, u64 *m, u64 *se) {
    unsigned short s;
    memcpy(m, &x, 8);
    memcpy(&s, (char *)&x + 8, 2);
    *se = s;
}

/* ---- native references (gcc -O0: fldt, the x87 operation, fstpt) ---- */

static void ref_add(u64 *o, u64 am, u64 ae, u64 bm, u64 be) { long double a = ld(am, ae), b = ld(bm, be), r = a + b; bits(r, &o[0], &o[1]); }
static void ref_sub(u64 *o, u64 am, u64 ae, u64 bm, u64 be) { long double a = ld(am, ae), b = ld(bm, be), r = a - b; bits(r, &o[0], &o[1]); }
static void ref_mul(u64 *o, u64 am, u64 ae, u64 bm, u64 be) { long double a = ld(am, ae), b = ld(bm, be), r = a * b; bits(r, &o[0], &o[1]); }
static void ref_div(u64 *o, u64 am, u64 ae, u64 bm, u64 be) { long double a = ld(am, ae), b = ld(bm, be), r = a / b; bits(r, &o[0], &o[1]); }
static int ref_cmp(u64 am, u64 ae, u64 bm, u64 be) {
    long double a = ld(am, ae), b = ld(bm, be);
    return a < b ? 0 : a == b ? 1 : a > b ? 2 : 3;
}
static void ref_sqrt(u64 *o, u64 m, u64 se) {
    long double x = ld(m, se);
    __asm__("fsqrt" : "+t"(x));
    bits(x, &o[0], &o[1]);
}
static void ref_from_double(u64 *o, u64 b) { double d; memcpy(&d, &b, 8); long double r = d; bits(r, &o[0], &o[1]); }
static void ref_from_float(u64 *o, u32 b) { float f; memcpy(&f, &b, 4); long double r = f; bits(r, &o[0], &o[1]); }
static u64 ref_to_double(u64 m, u64 se) { double d = (double)ld(m, se); u64 b; memcpy(&b, &d, 8); return b; }
static u32 ref_to_float(u64 m, u64 se) { float f = (float)ld(m, se); u32 b; memcpy(&b, &f, 4); return b; }
static void ref_from_int(u64 *o, u64 v, int is_signed) {
    long double r;
    if (is_signed) r = (long double)(long long)v;
    else r = (long double)v;
    bits(r, &o[0], &o[1]);
}
static u64 ref_to_int(u64 m, u64 se, int w, int is_signed) {
    long double x = ld(m, se);
    switch (w * 2 + is_signed) {
    case 16 + 1: { signed char v = (signed char)x; return (unsigned char)v; }
    case 16: { unsigned char v = (unsigned char)x; return v; }
    case 32 + 1: { short v = (short)x; return (unsigned short)v; }
    case 32: { unsigned short v = (unsigned short)x; return v; }
    case 64 + 1: { int v = (int)x; return (unsigned)v; }
    case 64: { unsigned v = (unsigned)x; return v; }
    case 128 + 1: { long long v = (long long)x; return (u64)v; }
    default: { unsigned long long v = (unsigned long long)x; return v; }
    }
}

/* ---- random numbers (splitmix64) ---- */

static u64 rng_state;
static u64 rnd(void) {
    u64 z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static u64 below(u64 n) { return rnd() % n; }

/* A significand with structure: random, sparse, runs of ones or zeros,
 * few significant bits (so that sums and products land on ties). */
static u64 rnd_sig(void) {
    u64 r = rnd();
    switch (below(8)) {
    case 0: case 1: return r;
    case 2: return r & rnd() & rnd();
    case 3: return r | rnd() | rnd();
    case 4: { int k = (int)below(64); return k ? r << k : r; }           /* few low bits */
    case 5: { int k = (int)below(64); return k ? ~0ULL << k : ~0ULL; }   /* run of ones */
    case 6: { int k = (int)below(64); return (r >> k) | 0x8000000000000000ULL; }
    default: return r ^ (1ULL << below(64));
    }
}

/* A value: mostly valid normals (integer bit set), sometimes any bits. */
static void rnd_val(u64 *m, u64 *se, int exp) {
    u64 sig = rnd_sig();
    int k = (int)below(32);
    if (k == 0) { *m = rnd(); *se = rnd() & 0xffff; return; }                /* any bit pattern */
    if (k == 1) { *m = sig; *se = (rnd() & 0x8000) | (below(2) ? 0 : 0x7fff); return; }
    *m = sig | 0x8000000000000000ULL;
    if (k == 2) *m = sig & 0x7fffffffffffffffULL;                            /* unnormal */
    if (k == 3 || k == 4) { *m = k == 3 ? sig >> below(64) : sig; *se = rnd() & 0x8000; return; } /* (pseudo-)denormal */
    if (exp < 0) exp = (int)below(0x7fff);
    if (exp > 0x7ffe) exp = 0x7ffe;
    *se = (u64)exp | (rnd() & 0x8000);
}

/* An exponent for the first operand: anywhere, near the bottom or the top
 * of the range, near 1, at the edges of double and float (denormals,
 * overflow), where the integer conversions overflow. */
static int rnd_exp(void) {
    switch (below(9)) {
    case 0: return (int)below(0x7fff);
    case 1: return (int)below(140);
    case 2: return 0x7ffe - (int)below(140);
    case 3: return 16383 - 70 + (int)below(140);
    case 4: return 16383 - 1074 - 70 + (int)below(140);
    case 5: return 16383 - 1022 - 70 + (int)below(140);
    case 6: return 16383 + 1024 - 40 + (int)below(80);
    case 7: return below(2) ? 16383 - 149 - 40 + (int)below(80) : 16383 - 126 - 40 + (int)below(80);
    default: return below(2) ? 16383 + 128 - 40 + (int)below(80) : 16383 - 2 + (int)below(70);
    }
}

static int clampe(int e) { return e < 0 ? 0 : e > 0x7ffe ? 0x7ffe : e; }

/* A second exponent related to the first as each operation likes it. */
static int second_exp(int op, int ea) {
    int near = (int)below(150) - 75;
    switch (below(4)) {
    case 0: return (int)below(0x7fff);
    case 1: break;
    default:
        if (op == 2) return clampe(16383 - ea + near + (below(2) ? 0 : 0x7ffe - 16383)); /* mul: under/overflow */
        if (op == 3) return clampe(ea - (below(2) ? 0x7ffe - 16383 : 1 - 16383) + near); /* div */
        break;
    }
    return clampe(ea + (int)below(140) - 70);
}

/* ---- special values ---- */

#define MAXSPEC 400
static u64 spec_m[MAXSPEC], spec_se[MAXSPEC];
static int nspec;

static void add_spec(u64 m, u64 se) {
    if (nspec + 2 > MAXSPEC) { fprintf(stderr, "too many special values\n"); exit(2); }
    spec_m[nspec] = m; spec_se[nspec++] = se & 0x7fff;
    spec_m[nspec] = m; spec_se[nspec++] = (se & 0x7fff) | 0x8000;
}
static void add_spec_ld(long double x) { u64 m, se; bits(x, &m, &se); add_spec(m, se); }

static void build_specials(void) {
    const u64 T = 0x8000000000000000ULL;
    static const int ks[] = {7, 8, 15, 16, 31, 32, 63, 64};
    int i;
    add_spec(0, 0);                                     /* zero */
    add_spec(1, 0);                                     /* smallest denormal */
    add_spec(0x7fffffffffffffffULL, 0);                 /* largest denormal */
    add_spec(0x0000000123456789ULL, 0);
    add_spec(0x4000000000000000ULL, 0);
    add_spec(T, 0);                                     /* pseudo-denormals */
    add_spec(T | 1, 0);
    add_spec(~0ULL, 0);
    add_spec(T, 1);                                     /* smallest normal */
    add_spec(T | 1, 1);
    add_spec(~0ULL, 1);
    add_spec(T, 16383);                                 /* 1 */
    add_spec(T | 1, 16383);
    add_spec(~0ULL, 16382);
    add_spec(0xC000000000000000ULL, 16383);             /* 1.5 */
    add_spec(T, 16384);                                 /* 2 */
    add_spec(0xC000000000000000ULL, 16384);             /* 3 */
    add_spec(T, 16383 - 64);                            /* half an ulp of 1 */
    add_spec(0xC000000000000000ULL, 16383 - 64);
    add_spec(T, 16383 - 63);
    add_spec(T, 16383 - 65);
    add_spec(0xAAAAAAAAAAAAAAABULL, 16381);             /* ~1/3 */
    for (i = 0; i < 8; i++) {
        int k = ks[i];
        long double p = 1.0L;
        int j;
        for (j = 0; j < k; j++) p *= 2;
        add_spec_ld(p);
        add_spec_ld(p - 1);
        add_spec_ld(p - 0.5L);
        add_spec_ld(p + 0.5L);
        add_spec_ld(p + 1);
        add_spec(T | 1, 16383 + k);                     /* next above */
        add_spec(~0ULL, 16383 + k - 1);                 /* next below */
    }
    add_spec(~0ULL, 0x7ffe);                            /* max finite */
    add_spec(T, 0x7ffe);
    add_spec(T, 0x7ffd);
    add_spec(T, 16383 + 8191);                          /* squares near the edges */
    add_spec(~0ULL, 16383 + 8191);
    add_spec(T, 16383 - 8191);
    add_spec(0xB504F333F9DE6484ULL, 16383 - 8192);      /* ~sqrt(2) * 2^-8192 */
    add_spec(T, 16383 - 8192);
    add_spec(0xC000000000000000ULL, 40);
    /* double and float edges */
    add_spec(0xFFFFFFFFFFFFF800ULL, 16383 + 1023);      /* DBL_MAX */
    add_spec(0xFFFFFFFFFFFFFC00ULL, 16383 + 1023);      /* DBL_MAX + half an ulp */
    add_spec(0xFFFFFFFFFFFFFBFFULL, 16383 + 1023);
    add_spec(T, 16383 + 1024);
    add_spec(T, 16383 - 1022);                          /* DBL_MIN */
    add_spec(0xFFFFFFFFFFFFF800ULL, 16383 - 1023);
    add_spec(0xFFFFFFFFFFFFFC00ULL, 16383 - 1023);      /* rounds up to DBL_MIN */
    add_spec(T, 16383 - 1074);                          /* smallest double denormal */
    add_spec(T, 16383 - 1075);                          /* half of it: ties to 0 */
    add_spec(0xC000000000000000ULL, 16383 - 1075);
    add_spec(0xC000000000000000ULL, 16383 - 1074);      /* 1.5 of it: ties to 2 */
    add_spec(T | 1, 16383 - 1075);
    add_spec(0xFFFFFF0000000000ULL, 16383 + 127);       /* FLT_MAX */
    add_spec(0xFFFFFF8000000000ULL, 16383 + 127);
    add_spec(T, 16383 - 126);                           /* FLT_MIN */
    add_spec(T, 16383 - 149);                           /* smallest float denormal */
    add_spec(T, 16383 - 150);
    add_spec(0xC000000000000000ULL, 16383 - 150);
    add_spec(0xC000000000000000ULL, 16383 - 149);
    add_spec(0x8000000000000400ULL, 16383);             /* ties of double rounding */
    add_spec(0x8000000000000C00ULL, 16383);
    add_spec(0x8000008000000000ULL, 16383);
    add_spec(0x8000018000000000ULL, 16383);
    /* infinities, NaNs, invalid encodings */
    add_spec(T, 0x7fff);                                /* infinity */
    add_spec(0xC000000000000000ULL, 0x7fff);            /* QNaN (with sign: real indefinite) */
    add_spec(0xC000000000000001ULL, 0x7fff);
    add_spec(0xC000000000000800ULL, 0x7fff);
    add_spec(~0ULL, 0x7fff);
    add_spec(T | 1, 0x7fff);                            /* SNaNs */
    add_spec(0xBFFFFFFFFFFFFFFFULL, 0x7fff);
    add_spec(0x8000000000000800ULL, 0x7fff);
    add_spec(0x8000010000000000ULL, 0x7fff);
    add_spec(0, 0x7fff);                                /* pseudo-infinity */
    add_spec(0x4000000000000000ULL, 0x7fff);            /* pseudo-NaNs */
    add_spec(1, 0x7fff);
    add_spec(0x4000000000000000ULL, 16383);             /* unnormals */
    add_spec(0, 16383);
    add_spec(1, 1);
    add_spec(0x7fffffffffffffffULL, 0x7ffe);
}

/* ---- comparison and reporting ---- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_CMP, OP_SQRT, OP_FROM_DOUBLE, OP_FROM_FLOAT, OP_TO_DOUBLE, OP_TO_FLOAT, OP_FROM_INT, OP_TO_INT, OP_ROUND_INT, NOPS };
static const char *op_name[NOPS] = {"add", "sub", "mul", "div", "cmp", "sqrt", "from_double", "from_float", "to_double", "to_float", "from_int", "to_int", "round_int"};
static u64 cases[NOPS], bad[NOPS];

static void report(int op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void report(int op, const char *fmt, ...) {
    va_list ap;
    bad[op]++;
    if (bad[op] > 20) return;
    va_start(ap, fmt);
    printf("MISMATCH %s: ", op_name[op]);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

typedef void (*bin_fn)(u64 *, u64, u64, u64, u64);
static const bin_fn ours_bin[4] = {ours_add, ours_sub, ours_mul, ours_div};
static const bin_fn ref_bin[4] = {ref_add, ref_sub, ref_mul, ref_div};

/* How much of the ground the cases cover, by the x87's own account: the
 * class of gcc's result and the exception flags the operation raised. */
static u64 n_inexact[NOPS], n_underflow[NOPS], n_invalid[NOPS], n_denormal_res[NOPS], n_zero_res[NOPS];

static void clear_flags(void) { __asm__ volatile("fnclex"); }
static void count_flags(int op, u64 m, u64 se, int has_result) {
    unsigned short sw;
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    n_invalid[op] += sw & 1;
    n_underflow[op] += (sw >> 4) & 1;
    n_inexact[op] += (sw >> 5) & 1;
    if (has_result) {
        n_denormal_res[op] += (se & 0x7fff) == 0 && m != 0;
        n_zero_res[op] += (se & 0x7fff) == 0 && m == 0;
    }
}

static void check_bin(int op, u64 am, u64 ae, u64 bm, u64 be) {
    u64 o[2], r[2];
    cases[op]++;
    ours_bin[op](o, am, ae, bm, be);
    clear_flags();
    ref_bin[op](r, am, ae, bm, be);
    count_flags(op, r[0], r[1], 1);
    if (o[0] != r[0] || o[1] != r[1])
        report(op, "a=%04llx:%016llx b=%04llx:%016llx ours=%04llx:%016llx gcc=%04llx:%016llx", ae, am, be, bm, o[1], o[0], r[1], r[0]);
}

static void check_cmp(u64 am, u64 ae, u64 bm, u64 be) {
    int o = __walkdown_f80_cmp(am, ae, bm, be), r = ref_cmp(am, ae, bm, be);
    cases[OP_CMP]++;
    if (o != r) report(OP_CMP, "a=%04llx:%016llx b=%04llx:%016llx ours=%d gcc=%d", ae, am, be, bm, o, r);
}

static void check_unary_narrow(u64 m, u64 se) {
    u64 a, b;
    u32 f, g;
    cases[OP_TO_DOUBLE]++;
    a = __walkdown_f80_to_double(m, se);
    clear_flags();
    b = ref_to_double(m, se);
    count_flags(OP_TO_DOUBLE, 0, 0, 0);
    n_denormal_res[OP_TO_DOUBLE] += (b & 0x7ff0000000000000ULL) == 0 && (b << 1) != 0;
    if (a != b) report(OP_TO_DOUBLE, "x=%04llx:%016llx ours=%016llx gcc=%016llx", se, m, a, b);
    cases[OP_TO_FLOAT]++;
    f = __walkdown_f80_to_float(m, se);
    clear_flags();
    g = ref_to_float(m, se);
    count_flags(OP_TO_FLOAT, 0, 0, 0);
    n_denormal_res[OP_TO_FLOAT] += (g & 0x7f800000u) == 0 && (g << 1) != 0;
    if (f != g) report(OP_TO_FLOAT, "x=%04llx:%016llx ours=%08x gcc=%08x", se, m, f, g);
}

/* An unnormal, pseudo-NaN or pseudo-infinity: a nonzero exponent with
 * the integer bit clear. */
static int invalid_encoding(u64 m, u64 se) {
    return (se & 0x7fff) != 0 && !(m >> 63);
}

static void check_unary(u64 m, u64 se) {
    u64 o[2], r[2], a, b;
    static const int ws[] = {8, 16, 32, 64};
    int i, sg;
    /* The square root of negative numbers is invalid, of their magnitude too. */
    for (i = 0; i < 1 + (int)(se >> 15); i++) {
        u64 x = i ? se & 0x7fff : se;
        cases[OP_SQRT]++;
        ours_sqrt(o, m, x);
        clear_flags();
        ref_sqrt(r, m, x);
        count_flags(OP_SQRT, r[0], r[1], 1);
        if (o[0] != r[0] || o[1] != r[1])
            report(OP_SQRT, "x=%04llx:%016llx ours=%04llx:%016llx gcc=%04llx:%016llx", x, m, o[1], o[0], r[1], r[0]);
    }
    /* floorl, ceill, truncl, roundl, rintl of glibc. */
    for (i = 0; i < 5; i++) {
        long double x = ld(m, se), y;
        /* glibc's roundl works on the bits without the x87: it returns
         * something of an invalid encoding (an unnormal, pseudo-NaN or
         * pseudo-infinity: only bytes written by hand make one), where
         * the runtime, like floorl's frndint, gives the real indefinite. */
        if (i == 3 && invalid_encoding(m, se))
            continue;
        cases[OP_ROUND_INT]++;
        ours_round_int(o, m, se, i);
        clear_flags();
        switch (i) {
        case 0: y = floorl(x); break;
        case 1: y = ceill(x); break;
        case 2: y = truncl(x); break;
        case 3: y = roundl(x); break;
        default: y = rintl(x);
        }
        bits(y, &r[0], &r[1]);
        count_flags(OP_ROUND_INT, r[0], r[1], 1);
        if (o[0] != r[0] || o[1] != r[1])
            report(OP_ROUND_INT, "x=%04llx:%016llx mode=%d ours=%04llx:%016llx glibc=%04llx:%016llx", se, m, i, o[1], o[0], r[1], r[0]);
    }
    check_unary_narrow(m, se);
    for (i = 0; i < 4; i++)
        for (sg = 0; sg < 2; sg++) {
            cases[OP_TO_INT]++;
            a = __walkdown_f80_to_int(m, se, ws[i], sg);
            clear_flags();
            b = ref_to_int(m, se, ws[i], sg);
            count_flags(OP_TO_INT, 0, 0, 0);
            if (a != b) report(OP_TO_INT, "x=%04llx:%016llx bits=%d signed=%d ours=%016llx gcc=%016llx", se, m, ws[i], sg, a, b);
        }
}

static void check_from_double(u64 d) {
    u64 o[2], r[2];
    cases[OP_FROM_DOUBLE]++;
    ours_from_double(o, d);
    ref_from_double(r, d);
    if (o[0] != r[0] || o[1] != r[1])
        report(OP_FROM_DOUBLE, "d=%016llx ours=%04llx:%016llx gcc=%04llx:%016llx", d, o[1], o[0], r[1], r[0]);
}

static void check_from_float(u32 f) {
    u64 o[2], r[2];
    cases[OP_FROM_FLOAT]++;
    ours_from_float(o, f);
    ref_from_float(r, f);
    if (o[0] != r[0] || o[1] != r[1])
        report(OP_FROM_FLOAT, "f=%08x ours=%04llx:%016llx gcc=%04llx:%016llx", f, o[1], o[0], r[1], r[0]);
}

static void check_from_int(u64 v) {
    u64 o[2], r[2];
    int sg;
    for (sg = 0; sg < 2; sg++) {
        cases[OP_FROM_INT]++;
        ours_from_int(o, v, sg);
        ref_from_int(r, v, sg);
        if (o[0] != r[0] || o[1] != r[1])
            report(OP_FROM_INT, "v=%016llx signed=%d ours=%04llx:%016llx gcc=%04llx:%016llx", v, sg, o[1], o[0], r[1], r[0]);
    }
}

/* A double or float bit pattern with structure (edges, NaNs, denormals). */
static u64 rnd_double(void) {
    u64 r = rnd_sig();
    switch (below(4)) {
    case 0: return r;
    case 1: return (r & 0x800fffffffffffffULL) | (below(2) ? 0 : 0x7ff0000000000000ULL);
    default: return (r & 0x800fffffffffffffULL) | ((u64)below(0x7ff) << 52);
    }
}
static u32 rnd_float(void) {
    u32 r = (u32)(rnd_sig() >> below(41));
    switch (below(4)) {
    case 0: return r;
    case 1: return (r & 0x807fffffu) | (below(2) ? 0 : 0x7f800000u);
    default: return (r & 0x807fffffu) | ((u32)below(0xff) << 23);
    }
}
static u64 rnd_int(void) {
    u64 r = rnd_sig();
    switch (below(4)) {
    case 0: return r;
    case 1: return r >> below(64);
    case 2: return (u64)0 - (r >> below(64));
    default: return (1ULL << below(64)) + below(5) - 2;
    }
}

/* Every float bit pattern through from_float, and the result back through
 * to_float and to_double. */
static int all_floats(u64 step) {
    u64 x, total = 0;
    for (x = 0; x <= 0xffffffffULL; x += step) {
        u64 o[2];
        check_from_float((u32)x);
        ours_from_float(o, (u32)x);
        check_unary_narrow(o[0], o[1]);
    }
    for (x = 0; x < NOPS; x++) {
        if (!cases[x]) continue;
        printf("%-12s %12llu cases %8llu mismatches\n", op_name[x], cases[x], bad[x]);
        total += bad[x];
    }
    printf("%s: %llu mismatches (every %lluth of the 2^32 floats)\n", total ? "FAIL" : "OK", total, step);
    return total ? 1 : 0;
}

/* Test vectors with gcc's results, as C initializers, for running the
 * runtime elsewhere (walkdown's interpreter) without an x87 at hand:
 * {op, am, ae, bm, be, result m, result se} for add, sub, mul, div (op
 * 0..3) and cmp (op 4, the result in m), and {m, se, sqrt m, sqrt se,
 * double bits, float bits, the eight integer casts (8, 16, 32, 64 bits;
 * unsigned, signed)} for the one-operand functions. */
static void emit_vectors(u64 n) {
    u64 k, r[2];
    int op, w;
    printf("static const unsigned long long f80_bin_vectors[][7] = {\n");
    for (k = 0; k < n; k++) {
        u64 am, ae, bm, be;
        op = (int)(k % 5);
        if (k < n / 4) {
            int i = (int)below(nspec), j = (int)below(nspec);
            am = spec_m[i]; ae = spec_se[i]; bm = spec_m[j]; be = spec_se[j];
        } else {
            int ea = rnd_exp();
            rnd_val(&am, &ae, ea);
            rnd_val(&bm, &be, second_exp(op, ea));
        }
        if (op < 4) ref_bin[op](r, am, ae, bm, be);
        else { r[0] = (u64)ref_cmp(am, ae, bm, be); r[1] = 0; }
        printf("  {%d, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx},\n", op, am, ae, bm, be, r[0], r[1]);
    }
    printf("};\nstatic const unsigned long long f80_unary_vectors[][14] = {\n");
    for (k = 0; k < n / 2; k++) {
        u64 m, se;
        if (k < n / 8) { int i = (int)below(nspec); m = spec_m[i]; se = spec_se[i]; }
        else rnd_val(&m, &se, rnd_exp());
        ref_sqrt(r, m, se);
        printf("  {0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%x", m, se, r[0], r[1], ref_to_double(m, se), ref_to_float(m, se));
        for (w = 8; w <= 64; w *= 2) printf(", 0x%llx, 0x%llx", ref_to_int(m, se, w, 0), ref_to_int(m, se, w, 1));
        printf("},\n");
    }
    printf("};\n");
}

int main(int argc, char **argv) {
    if (argc > 3 && !strcmp(argv[1], "--vectors")) {
        rng_state = strtoull(argv[2], 0, 0);
        build_specials();
        emit_vectors(strtoull(argv[3], 0, 0));
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--all-floats")) return all_floats(argc > 2 ? strtoull(argv[2], 0, 0) : 1);
    u64 seed = argc > 1 ? strtoull(argv[1], 0, 0) : 1;
    u64 n = argc > 2 ? strtoull(argv[2], 0, 0) : 100000;
    int i, j, op;
    u64 k;
    u64 total_bad = 0;
    rng_state = seed;
    build_specials();
    /* (a) all combinations of the special values */
    for (i = 0; i < nspec; i++) {
        for (j = 0; j < nspec; j++) {
            for (op = 0; op < 4; op++) check_bin(op, spec_m[i], spec_se[i], spec_m[j], spec_se[j]);
            check_cmp(spec_m[i], spec_se[i], spec_m[j], spec_se[j]);
        }
        check_unary(spec_m[i], spec_se[i]);
        check_from_double(__walkdown_f80_to_double(spec_m[i], spec_se[i]));
        check_from_float(__walkdown_f80_to_float(spec_m[i], spec_se[i]));
        check_from_int(__walkdown_f80_to_int(spec_m[i], spec_se[i], 64, 1));
    }
    {
        static const u64 ints[] = {0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000ULL, 0xffffffffULL,
                                   0x7fffffffffffffffULL, 0x8000000000000000ULL, 0xffffffffffffffffULL, 0x8000000000000001ULL, 0xfffffffffffffffeULL};
        for (i = 0; i < (int)(sizeof ints / sizeof ints[0]); i++) check_from_int(ints[i]);
    }
    /* (b) sweeps: every exponent with a few significands through the
     * one-operand functions; every alignment shift of an addition within
     * 140 bits, and every exponent sum near the bottom and the top of the
     * range for products and quotients, with significands that make ties. */
    {
        static const u64 sigs[] = {0x8000000000000000ULL, 0x8000000000000001ULL, 0xffffffffffffffffULL, 0xc000000000000000ULL,
                                   0x8000000000000400ULL, 0x8000000000000c00ULL, 0x8000008000000000ULL, 0xfffffffffffff800ULL,
                                   0xffffff8000000000ULL, 0x5555555555555555ULL};
        const int ns = (int)(sizeof sigs / sizeof sigs[0]);
        int e, d, x, y, sg;
        for (e = 0; e <= 0x7fff; e++)
            for (x = 0; x < ns; x++) check_unary(sigs[x], (u64)e | 0x8000);
        for (d = -140; d <= 140; d++)
            for (x = 0; x < ns; x++)
                for (y = 0; y < ns; y++)
                    for (sg = 0; sg < 4; sg++) {
                        u64 ae = 16383 | (u64)(sg & 1) << 15, be = (u64)(16383 + d) | (u64)(sg >> 1) << 15;
                        check_bin(OP_ADD, sigs[x], ae, sigs[y], be);
                        check_bin(OP_SUB, sigs[x], ae, sigs[y], be);
                        check_bin(OP_MUL, sigs[x], (u64)(8192 + d), sigs[y], 8192 | (u64)(sg & 1) << 15);
                        check_bin(OP_DIV, sigs[x], (u64)(140 + d), sigs[y], (u64)(16383 + 140) | (u64)(sg & 1) << 15);
                        check_bin(OP_MUL, sigs[x], (u64)(0x7ffe - 8192 + d), sigs[y], (u64)(16383 + 8192) | (u64)(sg & 1) << 15);
                        check_bin(OP_DIV, sigs[x], (u64)(0x7ffe - 70 + d), sigs[y], (u64)(16383 - 70) | (u64)(sg & 1) << 15);
                    }
    }
    /* (c) random cases */
    for (k = 0; k < n; k++) {
        u64 am, ae, bm, be;
        for (op = 0; op < 5; op++) {
            int ea = rnd_exp();
            rnd_val(&am, &ae, ea);
            rnd_val(&bm, &be, second_exp(op, ea));
            if (below(16) == 0) { bm = am ^ (below(2) ? 0 : 1ULL << below(64)); be = ae ^ (below(2) ? 0x8000 : 0); } /* cancellation, equality */
            if (op < 4) check_bin(op, am, ae, bm, be);
            else check_cmp(am, ae, bm, be);
        }
        rnd_val(&am, &ae, rnd_exp());
        check_unary(am, ae);
        check_from_double(rnd_double());
        check_from_float(rnd_float());
        check_from_int(rnd_int());
    }
    for (op = 0; op < NOPS; op++) {
        printf("%-12s %12llu cases %8llu mismatches   (x87: %llu inexact, %llu underflow, %llu invalid; results: %llu denormal, %llu zero)\n", op_name[op], cases[op], bad[op],
               n_inexact[op], n_underflow[op], n_invalid[op], n_denormal_res[op], n_zero_res[op]);
        total_bad += bad[op];
    }
    printf("%s: %llu mismatches (seed %llu, %llu random rounds, %d special values)\n", total_bad ? "FAIL" : "OK", total_bad, seed, n, nspec);
    return total_bad ? 1 : 0;
}
