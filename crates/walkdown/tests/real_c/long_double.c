/* long double (x87 80-bit extended precision): arithmetic, comparisons,
   conversions, memory layout, globals, parameters and results, printed bit
   for bit so that any difference from the native build shows. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct reading {
    char tag;
    long double value;
    int count;
};

static long double table[5] = {0.1L, -2.5L, 1e300L, 3.0L, 1e-4000L};
static struct reading last = {'r', 7.25L, 3};
static long double cell;

static unsigned long long seed = 0x2545F4914F6CDD1DULL;

static unsigned long long next(void) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* The 80 bits of `x`, as the native build stores them. */
static void show(const char *what, long double x) {
    unsigned long long m;
    unsigned short se;
    memcpy(&m, &x, 8);
    memcpy(&se, (const char *)&x + 8, 2);
    printf("%s %04x %016llx\n", what, se, m);
}

/* A finite long double from random bits: exponent near `centre`. */
static long double random_value(int centre, int spread) {
    long double x;
    unsigned long long m = next() | 0x8000000000000000ULL;
    int e = centre + (int)(next() % (unsigned)(2 * spread + 1)) - spread;
    unsigned short se = (unsigned short)((e & 0x7fff) | ((next() & 1) << 15));
    memcpy(&x, &m, 8);
    memcpy((char *)&x + 8, &se, 2);
    return x;
}

static long double horner(const long double *c, int n, long double x) {
    long double acc = 0;
    for (int i = n - 1; i >= 0; i--)
        acc = acc * x + c[i];
    return acc;
}

static long double mean(long double a, long double b, long double c) {
    return (a + b + c) / 3;
}

/* Variable arguments: long double goes in memory, between the others. */
static long double weighted(int n, ...) {
    va_list ap;
    va_start(ap, n);
    long double s = 0;
    for (int i = 0; i < n; i++) {
        int w = va_arg(ap, int);
        long double v = va_arg(ap, long double);
        double d = va_arg(ap, double);
        s += w * v + d;
    }
    va_end(ap);
    return s;
}

int main(void) {
    long double specials[] = {0.0L, -0.0L, 1.0L, -1.0L, 0.5L, 3.0L, 1e-4940L, 1e4932L,
                              __builtin_infl(), -__builtin_infl(), __builtin_nanl(""), 18446744073709551615.0L,
                              9223372036854775808.0L, 4294967296.0L, 1.0L / 3};
    int n = sizeof specials / sizeof specials[0];
    int lt = 0, eq = 0, un = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            long double a = specials[i], b = specials[j];
            show("add", a + b);
            show("sub", a - b);
            show("mul", a * b);
            show("div", a / b);
            lt += a < b;
            eq += a == b;
            un += !(a <= b) && !(a > b);
        }
        show("neg", -specials[i]);
        show("sqrt", sqrtl(specials[i]));
        show("floor", floorl(specials[i] * 2.5L));
        show("round", roundl(specials[i] * 2.5L));
        show("rint", rintl(specials[i] * 2.5L));
        show("dbl", (long double)(double)specials[i]);
        show("flt", (long double)(float)specials[i]);
    }
    printf("lt %d eq %d unordered %d\n", lt, eq, un);

    /* Random operands whose exponents are close, so sums cancel and
       products and quotients round. */
    for (int k = 0; k < 300; k++) {
        long double a = random_value(16383, 70), b = random_value(16383, 70);
        show("radd", a + b);
        show("rsub", a - b);
        show("rmul", a * b);
        show("rdiv", a / b);
        printf("rcmp %d %d %d\n", a < b, a == b, a >= b);
        double d = (double)a;
        float f = (float)b;
        show("rdbl", d);
        show("rsqrt", sqrtl(__builtin_fabsl(a)));
        show("rcopysign", copysignl(a, b));
        long double q = a / b * 1000;
        show("rfloor", floorl(q));
        show("rceil", ceill(q));
        show("rtrunc", truncl(q));
        show("rround", roundl(q));
        show("rrint", rintl(q));
        show("rnearby", nearbyintl(q + 0.5L));
        show("rflt", f);
    }
    /* Near the ends of the range: overflow to infinity, denormal results. */
    for (int k = 0; k < 100; k++) {
        long double a = random_value(32700, 60), b = random_value(60, 60);
        show("big", a * a);
        show("tiny", b * b);
        show("tinyq", b / a);
        show("tinyd", (long double)(double)(b * 1e4000L));
    }

    /* Integer conversions in range. */
    long long ll = -1234567890123456789LL;
    unsigned long long ull = 18446744073709551557ULL;
    int i32 = -2147483647;
    unsigned u32 = 4000000000u;
    short s16 = -12345;
    unsigned char u8 = 200;
    show("ll", ll);
    show("ull", ull);
    show("i32", i32);
    show("u32", u32);
    show("s16", s16);
    show("u8", u8);
    long double big = 12345678901234567890.75L;
    printf("to %llu %lld %d %u %d %d\n", (unsigned long long)big, (long long)(-big / 2), (int)(big / 1e10L),
           (unsigned)(big / 1e10L), (short)(-big / 1e15L), (signed char)(big / 1e18L));
    printf("bool %d %d\n", (_Bool)0.0L, (_Bool)1e-4940L);

    /* Memory: a struct member, an array, a global initializer. */
    struct reading r = last;
    r.value = r.value * table[3] + table[0];
    cell = r.value;
    show("struct", r.value);
    printf("layout %d %d %d\n", (int)sizeof(struct reading), (int)((char *)&r.count - (char *)&r), (int)sizeof table);
    show("cell", cell);
    show("tiny global", table[4]);
    show("horner", horner(table, 4, 1.5L));
    show("mean", mean(table[0], table[1], table[3]));
    long double sum = 0;
    for (int k = 1; k <= 1000; k++)
        sum += 1.0L / ((long double)k * k);
    show("basel", sum);
    show("fabsl", __builtin_fabsl(-sum));
    show("weighted", weighted(3, 1, 0.1L, 0.5, 2, -2.5L, 1.25, 3, 1e-300L, 2.0));
    printf("signbit %d %d\n", __builtin_signbit(-sum) != 0, __builtin_signbit(sum) != 0);
    return (int)(sum * 10) + (r.value > 20);
}
