/* Soft-float runtime for C `long double` (x86 80-bit extended precision,
 * LLVM x86_fp80) as walkdown lowers it.
 *
 * A value is (m, se): m is the 64-bit significand with its explicit integer
 * bit (bit 63), se holds the biased exponent in bits 0..14 and the sign in
 * bit 15 -- the x87 10-byte memory format. A function that yields a long
 * double returns its m and stores its se through its first parameter,
 * `se_out` (walkdown passes a global: an access to a global at offset 0 is
 * in bounds by construction, so the caller's read is no error goal); inside,
 * the f80_* functions work on an `out` pair, which clang keeps in registers.
 * Every function gives the bits
 * gcc's native x87 code gives (Linux default control word: 64-bit precision,
 * round to nearest even, all exceptions masked), for every bit pattern:
 * unnormals and pseudo-NaN/inf are invalid operands (result: the "real
 * indefinite" QNaN), pseudo-denormals are valid, SNaNs are quieted.
 *
 * Why the code looks the way it does: walkdown lowers this file (compiled by
 * clang-14 -O1) into its own IR, where the interpreter, the concolic engine
 * and the SMT encodings run it. So: integers only (no floating point, no
 * __int128, no library calls, no globals, no memory but the `se_out` stores),
 * no division, loops only of a fixed trip count, and special cases computed
 * unconditionally and chosen by conditional expressions (which clang turns
 * into `select`s) rather than branches, since every data-dependent branch is
 * a path fork for the concolic engine.
 *
 * Built by: clang-14 -c -emit-llvm -O1 -m64 (or -m32) -ffreestanding
 * -fno-builtin -w f80.c. That IR has no branches but the back edge of the
 * square root's fixed-count loop (the division's is unrolled), no memory
 * accesses but the
 * `se_out` stores, no integers wider than 64 bits, and only the llvm.ctlz and
 * llvm.fshl intrinsics (tests/f80_runtime.rs checks all this). The native
 * checker f80_check.c compares every function with gcc's x87 code.
 */

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned u32;

#define F80_INLINE static inline __attribute__((always_inline))

#define TOP 0x8000000000000000ULL
#define QBIT 0x4000000000000000ULL
#define INDEF_M 0xC000000000000000ULL
#define INDEF_SE 0xFFFFULL

/* c ? a : b with both already computed: a `select`, never a branch (a
 * conditional expression with work in its arms becomes a branch). */
F80_INLINE u64 sel(int c, u64 a, u64 b) { return c ? a : b; }
F80_INLINE int seli(int c, int a, int b) { return c ? a : b; }

/* Number of leading zeros of x | 1: exact for nonzero x, 63 for 0 -- every
 * caller throws away what it computes from a zero. Not `x ? clz : 64`:
 * under -m32 clang keeps that a branch. */
F80_INLINE int clz64(u64 x) { return __builtin_clzll(x | 1); }

/* (h, l) >>= n for n >= 0, the bits shifted out or-ed into bit 0 of l
 * ("jamming"), so that rounding still sees that something was lost.
 * `(x << 1) << (63 - k)` is x << (64 - k) for k in 1..63 and 0 for k = 0,
 * without a shift by 64. */
F80_INLINE void shr128_jam(u64 *h, u64 *l, int n) {
    u64 hi = *h, lo = *l;
    int k = n & 63;
    u64 s_lo = (hi << 1) << (63 - k) | lo >> k | (((lo << 1) << (63 - k)) != 0);
    u64 s_hi = hi >> k;
    u64 b_lo = hi >> k | (((hi << 1) << (63 - k)) != 0) | (lo != 0);
    u64 c_lo = (hi | lo) != 0;
    *l = sel(n < 64, s_lo, sel(n < 128, b_lo, c_lo));
    *h = sel(n < 64, s_hi, 0);
}

/* (h, l) <<= n for 0 <= n < 128. */
F80_INLINE void shl128(u64 *h, u64 *l, int n) {
    u64 hi = *h, lo = *l;
    int k = n & 63;
    u64 s_hi = hi << k | (lo >> 1) >> (63 - k);
    u64 s_lo = lo << k;
    *h = sel(n < 64, s_hi, lo << k);
    *l = sel(n < 64, s_lo, 0);
}

/* The full 128-bit product of a and b, from 32-bit halves. */
F80_INLINE void mul64(u64 a, u64 b, u64 *h, u64 *l) {
    u64 a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
    u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    u64 mid = (p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL);
    *l = mid << 32 | (p00 & 0xffffffffULL);
    *h = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* The classes of an operand, as the x87 sees it. */
struct cls {
    u64 s;      /* sign, 0 or 1 */
    int inv;    /* unnormal, pseudo-NaN or pseudo-infinity: invalid operand */
    int nan;    /* NaN (quiet or signalling) */
    int snan;
    int inf;
    int zero;
    int e;      /* finite nonzero: biased exponent of the normalized value (may be < 1) */
    u64 m;      /* finite nonzero: normalized significand (bit 63 set) */
};

F80_INLINE struct cls classify(u64 m, u64 se) {
    struct cls c;
    int e = (int)(se & 0x7fff);
    int j = (int)(m >> 63);
    int lz = clz64(m);
    c.s = (se >> 15) & 1;
    c.inv = (e != 0) & !j;
    c.nan = (e == 0x7fff) & j & ((m << 1) != 0);
    c.snan = c.nan & !(m & QBIT);
    c.inf = (e == 0x7fff) & (m == TOP);
    c.zero = (e == 0) & (m == 0);
    /* Denormals and pseudo-denormals have the scale of exponent 1. */
    c.e = seli(e != 0, e, 1) - (lz & 63);
    c.m = m << (lz & 63);
    return c;
}

/* Round (h, l) -- h with bit 63 set, l the bits below -- at biased
 * exponent e to 64 bits, nearest even, with the x87's masked underflow
 * (denormalize, then round once) and overflow (to infinity). */
F80_INLINE void round80(u64 *out, u64 s, int e, u64 h, u64 l) {
    int den = e < 1;
    int sh = seli(den, seli(1 - e > 128, 128, 1 - e), 0);
    shr128_jam(&h, &l, sh);
    u64 up = (l >> 63) & (((l << 1) != 0) | (h & 1));
    u64 r = h + up;
    int carry = (int)up & (r == 0);
    r = sel(carry, TOP, r);
    int ee = seli(den, (int)(r >> 63), e + carry);
    int ovf = ee >= 0x7fff;
    out[0] = sel(ovf, TOP, r);
    out[1] = (u64)seli(ovf, 0x7fff, ee) | s << 15;
}

/* The x87's choice of result for an operation with at least one NaN
 * operand: a NaN alone is returned quieted (sign and payload kept); of two
 * NaNs, a quiet one wins over a signalling one whatever the significands,
 * else the larger significand, and of equal significands the positive one.
 * Found by experiment (f80_check.c: gcc -O0 `a + b`, `a - b`, `a * b`,
 * `a / b` on all pairs of NaNs in both operand orders), and so for the sign:
 * `a - b` with a NaN b returns b's sign, not the flipped one. Returns the
 * significand; *se gets the sign and exponent. */
F80_INLINE u64 pick_nan(u64 am, u64 ae, struct cls a, u64 bm, u64 be, struct cls b, u64 *se) {
    int take_b;
    u64 qa = am | QBIT, qb = bm | QBIT;
    int by_quiet = a.snan != b.snan;
    int larger = (qb > qa) | ((qb == qa) & (a.s > b.s));
    take_b = seli(!a.nan, 1, seli(!b.nan, 0, seli(by_quiet, a.snan, larger)));
    *se = sel(take_b, be, ae) & 0xffff;
    return sel(take_b, qb, qa);
}

/* The result for a two-operand operation whose result is decided by the
 * operands' classes alone (NaN, invalid). Returns 1 if so. An invalid
 * encoding (unnormal, pseudo-NaN, pseudo-infinity) wins over a NaN in the
 * other operand: the result is the real indefinite (found by experiment). */
F80_INLINE int special2(u64 *m, u64 *se, u64 am, u64 ae, struct cls a, u64 bm, u64 be, struct cls b) {
    u64 nse;
    u64 nm = pick_nan(am, ae, a, bm, be, b, &nse);
    int inv = a.inv | b.inv;
    *m = sel(inv, INDEF_M, nm);
    *se = sel(inv, INDEF_SE, nse);
    return inv | a.nan | b.nan;
}

/* The end of a binary operation after rounding: the invalid result where
 * `inv`, then NaN and invalid operands (special2). */
F80_INLINE void finish2(u64 *out, u64 rm, u64 rse, int inv, u64 am, u64 ae, struct cls a, u64 bm, u64 be, struct cls b) {
    rm = sel(inv, INDEF_M, rm);
    rse = sel(inv, INDEF_SE, rse);
    u64 pm, pse;
    int sp = special2(&pm, &pse, am, ae, a, bm, be, b);
    out[0] = sel(sp, pm, rm);
    out[1] = sel(sp, pse, rse);
}

/* A product's or quotient's zero and infinity, with the sign `s`. */
F80_INLINE void zero_or_inf(u64 *rm, u64 *rse, u64 s, int zero, int inf) {
    *rm = sel(zero, 0, *rm);
    *rse = sel(zero, s << 15, *rse);
    *rm = sel(inf, TOP, *rm);
    *rse = sel(inf, 0x7fff | s << 15, *rse);
}

F80_INLINE void add_core(u64 *out, u64 am, u64 ae, u64 bm, u64 be, u64 flip) {
    struct cls a = classify(am, ae), b = classify(bm, be);
    u64 sa = a.s, sb = b.s ^ flip;
    /* Zeros take part as the smallest magnitude; the exponent keeps the
     * alignment shift from overflowing anything. */
    int ea = seli(a.zero, -1000, a.e), eb = seli(b.zero, -1000, b.e);
    u64 ma = sel(a.zero, 0, a.m), mb = sel(b.zero, 0, b.m);
    int a_big = (ea > eb) | ((ea == eb) & (ma >= mb));
    int e1 = seli(a_big, ea, eb), e2 = seli(a_big, eb, ea);
    u64 m1 = sel(a_big, ma, mb), m2 = sel(a_big, mb, ma);
    u64 s1 = sel(a_big, sa, sb);
    int d = e1 - e2;
    u64 h2 = m2, l2 = 0;
    shr128_jam(&h2, &l2, seli(d > 130, 130, d));
    /* Same signs: add, a carry shifts right by one. */
    u64 hs = m1 + h2, ls = l2;
    int cs = hs < m1;
    u64 hs1 = sel(cs, hs >> 1 | TOP, hs);
    u64 ls1 = sel(cs, hs << 63 | ls >> 1 | (ls & 1), ls);
    int es = e1 + cs;
    /* Opposite signs: subtract the smaller magnitude, normalize left. */
    u64 ld = 0 - l2;
    u64 hd = m1 - h2 - (l2 != 0);
    int nd = seli(hd != 0, clz64(hd), 64 + clz64(ld));
    int nz = (hd | ld) != 0;
    shl128(&hd, &ld, seli(nz, nd, 0));
    int ed = e1 - nd;
    int same = sa == sb;
    u64 h = sel(same, hs1, hd), l = sel(same, ls1, ld);
    int e = seli(same, es, ed);
    int zero_res = seli(same, a.zero & b.zero, !nz);
    round80(out, s1, e, h, l);
    u64 rm = out[0], rse = out[1];
    /* x + -x is +0 in round to nearest; -0 + -0 is -0. */
    rm = sel(zero_res, 0, rm);
    rse = sel(zero_res, (sa & sb) << 15, rse);
    /* Infinities: opposite ones are invalid. */
    int inf_inv = a.inf & b.inf & (sa != sb);
    rm = sel(a.inf | b.inf, TOP, rm);
    rse = sel(a.inf, 0x7fff | sa << 15, sel(b.inf, 0x7fff | sb << 15, rse));
    finish2(out, rm, rse, inf_inv, am, ae, a, bm, be, b);
}

F80_INLINE void f80_add(u64 *out, u64 am, u64 ae, u64 bm, u64 be) { add_core(out, am, ae, bm, be, 0); }

F80_INLINE void f80_sub(u64 *out, u64 am, u64 ae, u64 bm, u64 be) { add_core(out, am, ae, bm, be, 1); }

F80_INLINE void f80_mul(u64 *out, u64 am, u64 ae, u64 bm, u64 be) {
    struct cls a = classify(am, ae), b = classify(bm, be);
    u64 s = a.s ^ b.s;
    u64 h, l;
    mul64(a.m, b.m, &h, &l);
    int norm = !(h >> 63);
    shl128(&h, &l, norm);
    int e = a.e + b.e - 16383 + 1 - norm;
    round80(out, s, e, h, l);
    u64 rm = out[0], rse = out[1];
    int zero = a.zero | b.zero, inf = a.inf | b.inf;
    zero_or_inf(&rm, &rse, s, zero, inf);
    finish2(out, rm, rse, zero & inf, am, ae, a, bm, be, b);
}

F80_INLINE void f80_div(u64 *out, u64 am, u64 ae, u64 bm, u64 be) {
    struct cls a = classify(am, ae), b = classify(bm, be);
    u64 s = a.s ^ b.s;
    u64 ma = a.m, mb = b.m | TOP; /* | TOP: no garbage divisor for zeros */
    /* Restoring division, one quotient bit per step; the quotient of two
     * significands in [2^63, 2^64) is in (1/2, 2), its first bit is made 1
     * by doubling the dividend when ma < mb. */
    int ge0 = ma >= mb;
    u64 r = sel(ge0, ma - mb, (ma << 1) - mb);
    u64 q = 1;
    /* Unrolled: straight-line code needs no unwinding in walkdown's bounded
     * engines (a loop of 63 steps would need an unwinding of 64). */
#pragma clang loop unroll(full)
    for (int i = 0; i < 63; i++) {
        u64 top = r >> 63;
        r <<= 1;
        u64 ge = top | (r >= mb);
        r = sel((int)ge, r - mb, r);
        q = q << 1 | ge;
    }
    u64 top = r >> 63;
    r <<= 1;
    u64 g = top | (r >= mb);
    r = sel((int)g, r - mb, r);
    u64 l = g << 63 | (r != 0);
    int e = a.e - b.e + 16383 - !ge0;
    round80(out, s, e, q, l);
    u64 rm = out[0], rse = out[1];
    int zero = a.zero | b.inf;        /* 0 / x, x / inf */
    int inf = a.inf | b.zero;         /* inf / x, x / 0 */
    zero_or_inf(&rm, &rse, s, zero, inf);
    finish2(out, rm, rse, (a.zero & b.zero) | (a.inf & b.inf), am, ae, a, bm, be, b);
}

int __walkdown_f80_cmp(u64 am, u64 ae, u64 bm, u64 be) {
    struct cls a = classify(am, ae), b = classify(bm, be);
    /* Magnitudes as (exponent, significand); zero lowest, infinity highest. */
    int ea = seli(a.zero, -1000, seli(a.inf, 100000, a.e));
    int eb = seli(b.zero, -1000, seli(b.inf, 100000, b.e));
    u64 ma = sel(a.zero, 0, a.m), mb = sel(b.zero, 0, b.m);
    int mag_lt = (ea < eb) | ((ea == eb) & (ma < mb));
    int mag_eq = (ea == eb) & (ma == mb);
    int both_zero = a.zero & b.zero;
    int eq = both_zero | ((a.s == b.s) & mag_eq);
    int lt = seli(a.s != b.s, (int)a.s, seli((int)a.s, !mag_lt & !mag_eq, mag_lt));
    int unord = a.nan | b.nan | a.inv | b.inv;
    return seli(unord, 3, seli(eq, 1, seli(lt, 0, 2)));
}

/* A binary IEEE value -- sign s, biased exponent e (emax: all ones),
 * fraction f of fb bits -- as (m, se), exactly. A denormal
 * f * 2^(1 - bias - fb) becomes (f << lz) * 2^(1 - bias - fb - lz). */
F80_INLINE void from_ieee(u64 *out, u64 s, int e, u64 f, int fb, int emax, int bias) {
    int lz = clz64(f);
    u64 dm = f << (lz & 63);
    int de = 16383 + 63 - (bias - 1 + fb) - lz;
    u64 m = sel(e == emax, TOP | f << (63 - fb) | sel(f != 0, QBIT, 0),
                sel(e == 0, dm, TOP | f << (63 - fb)));
    int ex = seli(e == emax, 0x7fff, seli(e == 0, seli(f != 0, de, 0), e - bias + 16383));
    out[0] = m;
    out[1] = (u64)ex | s << 15;
}

F80_INLINE void f80_from_double(u64 *out, u64 d) {
    from_ieee(out, d >> 63, (int)((d >> 52) & 0x7ff), d & 0xfffffffffffffULL, 52, 0x7ff, 1023);
}

F80_INLINE void f80_from_float(u64 *out, u32 x) {
    from_ieee(out, x >> 31, (int)((x >> 23) & 0xff), x & 0x7fffffULL, 23, 0xff, 127);
}

/* x rounded to an integral value: mode 0 floor, 1 ceil, 2 trunc, 3 round
 * (halfway away from zero), 4 rint (halfway to even, the default rounding
 * mode) -- glibc's floorl, ceill, truncl, roundl and rintl/nearbyintl on
 * the x87 format. NaNs come back quieted, infinities and zeros unchanged,
 * invalid encodings as the real indefinite. For E = e - 16383 the
 * significand has 63 - E fraction bits: none from E = 63 on, all below
 * E = 0, where the result is 0 or 1 in magnitude. */
F80_INLINE void f80_round_int(u64 *out, u64 m, u64 se, int mode) {
    struct cls c = classify(m, se);
    int E = c.e - 16383;
    u64 up_floor = (u64)(mode == 0) & c.s, up_ceil = (u64)(mode == 1) & !c.s;
    /* 0 <= E <= 62: cut the fraction, then maybe add one unit. */
    int fb = seli((E >= 0) & (E <= 62), 63 - E, 1);
    u64 unit = 1ULL << (fb & 63);
    u64 frac = c.m & (unit - 1), ip = c.m & ~(unit - 1), half = unit >> 1;
    u64 odd = (ip >> (fb & 63)) & 1;
    u64 up = ((up_floor | up_ceil) & (frac != 0)) | ((u64)(mode == 3) & (frac >= half)) |
             ((u64)(mode == 4) & ((frac > half) | ((frac == half) & odd)));
    u64 sum = ip + sel(up, unit, 0);
    int carry = (int)up & (sum < ip);
    u64 mid_m = sel(carry, TOP, sum);
    int mid_e = c.e + carry;
    /* E < 0 (denormals included): the magnitude is below 1. */
    u64 tiny_up = ((up_floor | up_ceil)) | ((u64)(mode == 3) & (E == -1)) |
                  ((u64)(mode == 4) & (E == -1) & (c.m != TOP));
    u64 small_m = sel(tiny_up, TOP, 0);
    int small_e = seli((int)tiny_up, 16383, 0);
    int integral = E >= 63;
    u64 rm = sel(integral, c.m, sel(E < 0, small_m, mid_m));
    int re = seli(integral, c.e, seli(E < 0, small_e, mid_e));
    rm = sel(c.zero | c.inf, m, rm);
    re = seli(c.zero | c.inf, (int)(se & 0x7fff), re);
    u64 rse = (u64)re | c.s << 15;
    rm = sel(c.inv, INDEF_M, rm);
    rse = sel(c.inv, INDEF_SE, rse);
    rm = sel(c.nan, m | QBIT, rm);
    rse = sel(c.nan, se & 0xffff, rse);
    out[0] = rm;
    out[1] = rse;
}

/* Rounds the class `c` to a binary format of `fb` fraction bits, exponent
 * bias `bias` and all-ones exponent `emax`; returns the bits without the
 * sign. NaNs keep the top `fb` payload bits, quieted. */
F80_INLINE u64 to_narrow(struct cls c, u64 m, int fb, int bias, int emax) {
    int drop = 63 - fb;                       /* 11 for double, 40 for float */
    int ed = c.e - 16383 + bias;              /* biased target exponent */
    int den = ed < 1;
    int sh = seli(den, seli(1 - ed > 64, 64, 1 - ed), 0);
    u64 h = c.m, l = 0;
    shr128_jam(&h, &l, sh);
    h |= l != 0;
    u64 half = 1ULL << (drop - 1);
    u64 rb = h & ((1ULL << drop) - 1);
    u64 sig = h >> drop;
    u64 up = (rb > half) | ((rb == half) & sig);
    sig += up;
    /* The integer bit, if present, adds one to the exponent field; a carry
     * out of the significand adds one more: the field is right either way. */
    u64 base = sel(den, 0, (u64)(ed - 1));
    u64 bits = (base << fb) + sig;
    u64 inf = (u64)emax << fb;
    int ovf = (ed >= emax) | (bits >= inf);
    bits = sel(ovf, inf, bits);
    u64 fmask = (1ULL << fb) - 1;
    u64 nan = inf | 1ULL << (fb - 1) | ((m >> drop) & fmask);
    bits = sel(c.zero, 0, bits);
    bits = sel(c.inf, inf, bits);
    bits = sel(c.nan, nan, bits);
    return bits;
}

u64 __walkdown_f80_to_double(u64 m, u64 se) {
    struct cls c = classify(m, se);
    u64 bits = to_narrow(c, m, 52, 1023, 0x7ff) | c.s << 63;
    return sel(c.inv, 0xFFF8000000000000ULL, bits);
}

u32 __walkdown_f80_to_float(u64 m, u64 se) {
    struct cls c = classify(m, se);
    u64 bits = to_narrow(c, m, 23, 127, 0xff) | c.s << 31;
    return (u32)sel(c.inv, 0xFFC00000u, bits);
}

F80_INLINE void f80_from_int(u64 *out, u64 v, int is_signed) {
    u64 s = sel(is_signed != 0, v >> 63, 0);
    u64 mag = sel((int)s, 0 - v, v);
    int lz = clz64(mag);
    out[0] = mag << (lz & 63);
    out[1] = sel(mag != 0, (u64)(16383 + 63 - lz) | s << 15, 0);
}

/* What `fistp` of a `w`-bit integer stores for the value (truncating
 * rounding mode), as a 64-bit pattern: the truncated value if it fits,
 * else (NaN, infinity, invalid operand, out of range) the "integer
 * indefinite" 1 << (w - 1). */
F80_INLINE u64 fistp(struct cls c, int w) {
    int sh = 16383 + 63 - c.e;                /* right shift of m to the integer */
    u64 t = c.m >> (sh & 63);
    t = sel(sh >= 64, 0, t);
    int big = sh < 0;                          /* |x| >= 2^64 */
    /* fits: -2^(w-1) <= value <= 2^(w-1) - 1 */
    u64 lim = 1ULL << (w - 1);
    int fits = (!big) & seli((int)c.s, t <= lim, t < lim);
    fits = fits | c.zero;
    u64 v = sel((int)c.s, 0 - t, t);
    v = sel(c.zero, 0, v);
    int bad = (!fits) | c.nan | c.inf | c.inv;
    return sel(bad, lim, v);
}

/* gcc -O0 (both -m64 and -m32) casts a long double x to
 *   signed char, unsigned char, short: fistp m16 (truncating), then the low 8/16 bits;
 *   unsigned short, int:               fistp m32, then the low 16/32 bits;
 *   unsigned, long long:               fistp m64, then the low 32/64 bits;
 *   unsigned long long: if x >= 2^63 (fcomip; false when unordered):
 *       fistp m64 of x - 2^63, xor 2^63 (so 0 for x >= 2^64 and +inf),
 *     else fistp m64 of x (so 2^63 for NaN, invalid operands and x <= -2^63 - 1).
 * fistp stores the integer indefinite (only the top bit set) for NaN,
 * infinity, invalid operands and values out of its range. */
u64 __walkdown_f80_to_int(u64 m, u64 se, int bits, int is_signed) {
    struct cls c = classify(m, se);
    int w = seli(bits == 64, 64, seli(((bits == 32) & (is_signed != 0)) | ((bits == 16) & !is_signed), 32, seli(bits == 32, 64, 16)));
    u64 r = fistp(c, w);
    /* unsigned long long: x >= 2^63 */
    int ge63 = !c.nan & !c.inv & !c.zero & !c.s & (c.inf | (c.e >= 16383 + 63));
    /* x in [2^63, 2^64): x - 2^63 is exact and fits: the result is the
     * truncated x; x >= 2^64: indefinite ^ 2^63 = 0. */
    u64 t = c.m;  /* e == 16383 + 63: the integer is m itself */
    u64 hi = sel(c.inf | (c.e > 16383 + 63), 0, t);
    r = sel((bits == 64) & !is_signed & ge63, hi, r);
    u64 mask = sel(bits == 64, ~0ULL, (1ULL << (bits & 63)) - 1);
    return r & mask;
}

F80_INLINE void f80_sqrt(u64 *out, u64 m, u64 se) {
    struct cls c = classify(m, se);
    /* For x = m * 2^(E - 63), E = e - 16383: the root of the radicand
     * m * 2^65 (E even) or m * 2^66 (E odd) has 65 bits: 64 for the
     * result and a rounding bit; the remainder gives the sticky bit. The
     * radicand's top 128 bits are (xh, xl), its low 2 bits are zero. */
    int E = c.e - 16383;
    int odd = E & 1;
    u64 xh = sel(odd, c.m, c.m >> 1);
    u64 xl = sel(odd, 0, c.m << 63);
    u64 rh = 0, rl = 0, root = 0;
    /* Not unrolled: Z3 answers queries through the looped form's code
     * better (measured on a `sqrtl` condition: the concolic engine solved
     * one direction within 60 s with the loop, none unrolled). */
    for (int i = 0; i < 64; i++) {
        u64 two = xh >> 62;
        xh = xh << 2 | xl >> 62;
        xl <<= 2;
        rh = rh << 2 | rl >> 62;
        rl = rl << 2 | two;
        u64 th = root >> 62, tl = root << 2 | 1;
        int ge = (rh > th) | ((rh == th) & (rl >= tl));
        u64 nl = rl - tl;
        u64 nh = rh - th - (rl < tl);
        rh = sel(ge, nh, rh);
        rl = sel(ge, nl, rl);
        root = root << 1 | (u64)ge;
    }
    /* The rounding bit: one more step with zero radicand bits. */
    rh = rh << 2 | rl >> 62;
    rl = rl << 2;
    u64 th = root >> 62, tl = root << 2 | 1;
    int g = (rh > th) | ((rh == th) & (rl >= tl));
    u64 nl = rl - tl;
    u64 nh = rh - th - (rl < tl);
    rh = sel(g, nh, rh);
    rl = sel(g, nl, rl);
    u64 l = (u64)g << 63 | ((rh | rl) != 0);
    int re = (E >> 1) + 16383;
    round80(out, 0, re, root, l);
    u64 rm = out[0], rse = out[1];
    rm = sel(c.zero, 0, rm);
    rse = sel(c.zero, c.s << 15, rse);
    rm = sel(c.inf, TOP, rm);
    rse = sel(c.inf, 0x7fff | c.s << 15, rse);
    int inv = c.inv | ((int)c.s & !c.zero & !c.nan);
    rm = sel(inv, INDEF_M, rm);
    rse = sel(inv, INDEF_SE, rse);
    rm = sel(c.nan, m | QBIT, rm);
    rse = sel(c.nan, se & 0xffff, rse);
    out[0] = rm;
    out[1] = rse;
}

/* ---- the exported functions yielding a long double: m returned, se
 * stored through `se_out` ---- */

F80_INLINE u64 split(u64 *se_out, const u64 *out) {
    *se_out = out[1];
    return out[0];
}

u64 __walkdown_f80_add(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be) { u64 out[2]; f80_add(out, am, ae, bm, be); return split(se_out, out); }
u64 __walkdown_f80_sub(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be) { u64 out[2]; f80_sub(out, am, ae, bm, be); return split(se_out, out); }
u64 __walkdown_f80_mul(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be) { u64 out[2]; f80_mul(out, am, ae, bm, be); return split(se_out, out); }
u64 __walkdown_f80_div(u64 *se_out, u64 am, u64 ae, u64 bm, u64 be) { u64 out[2]; f80_div(out, am, ae, bm, be); return split(se_out, out); }
u64 __walkdown_f80_from_double(u64 *se_out, u64 d) { u64 out[2]; f80_from_double(out, d); return split(se_out, out); }
u64 __walkdown_f80_from_float(u64 *se_out, u32 x) { u64 out[2]; f80_from_float(out, x); return split(se_out, out); }
u64 __walkdown_f80_from_int(u64 *se_out, u64 v, int is_signed) { u64 out[2]; f80_from_int(out, v, is_signed); return split(se_out, out); }
u64 __walkdown_f80_sqrt(u64 *se_out, u64 m, u64 se) { u64 out[2]; f80_sqrt(out, m, se); return split(se_out, out); }
u64 __walkdown_f80_round_int(u64 *se_out, u64 m, u64 se, int mode) { u64 out[2]; f80_round_int(out, m, se, mode); return split(se_out, out); }
