/* Runs of bit-fields longer than 64 bits in packed structs: clang reads
   and writes each run as one integer of its total width (i72, i80, i96,
   i104, i120, i128), with shifts and masks on that width. Signed fields
   need sign extension from their top bit; fields straddle the 64-bit
   boundary of the run. */
#include <stdio.h>
#pragma pack(push, 1)
struct A { signed char c; int a : 21; unsigned b : 11; long long d : 33; unsigned long long e : 50; short s; };
struct B { unsigned long long x : 60; signed y : 12; };                      /* 72 bits */
struct C { signed long long p : 45; unsigned long long q : 35; };            /* 80 bits */
struct D { unsigned u : 31; signed long long v : 63; unsigned w : 2; };      /* 96 bits */
struct E { signed long long m : 64; signed long long n : 64; };              /* 128 bits */
struct F { unsigned char k; unsigned long long r : 41; signed long long t : 63; }; /* 104 bits */
/* 92 bits in an i96: in ILP32 clang types the struct as <{ i96 }> (LLVM
   allocates 12 bytes for an i96 there, 16 in LP64), so array strides
   depend on the wide integer's allocation size. */
struct S3 { signed f0 : 14; signed f1 : 17; signed f2 : 22; unsigned f3 : 8; unsigned f4 : 19; signed f5 : 12; };
#pragma pack(pop)

static struct A ga = { 1, -5, 7, -123456789, 0x3ffffffffffffULL, 9 };
static struct B gb[3] = { { 0xfffffffffffffffULL, -2048 }, { 5, 2047 }, { 0, -1 } };
static struct C gc = { -17592186044416LL, 34359738367ULL };
static struct D gd = { 0x7fffffff, -4611686018427387904LL, 3 };
static struct E ge = { -9223372036854775807LL - 1, 9223372036854775807LL };
static struct F gf = { 200, 0x1ffffffffffULL, -1 };
static struct S3 g3[3] = { { -86, 165, -921, 8, 621, 36 }, { 1, 2, 3, 4, 5, 6 }, { -1, -2, -3, 255, 524287, -2048 } };

static unsigned long long h = 14695981039346656037ULL;
static void mix(long long v) { h = (h ^ (unsigned long long)v) * 0x100000001b3ULL; }

int main(void) {
  for (int i = 0; i < 50; i++) {
    ga.a = ga.a * 3 + i; ga.b += 13 * i; ga.d -= 77 * i; ga.e ^= (unsigned long long)ga.d << 5; ga.s++;
    mix(ga.a); mix(ga.b); mix(ga.d); mix((long long)ga.e); mix(ga.s); mix(ga.c);
    struct B *b = &gb[i % 3];
    b->x = b->x * 5 + (unsigned long long)i; b->y = b->y - 3 * i;
    mix((long long)b->x); mix(b->y); mix(b->x > 1000 ? b->y : -b->y);
    gc.p = gc.p / 3 + gc.q; gc.q = gc.q * 7 - i; mix(gc.p); mix((long long)gc.q); mix(gc.p < 0);
    gd.v = gd.v + (gd.u >> 3) - gd.w; gd.u = gd.u * 9 + gd.w; gd.w = (gd.w + 1) & 3;
    mix(gd.u); mix(gd.v); mix(gd.w);
    ge.m += ge.n >> 7; ge.n = ge.n ^ (ge.m << 1); mix(ge.m); mix(ge.n); mix(ge.m < ge.n);
    gf.r = gf.r * 3 + gf.k; gf.t = gf.t * 5 - (long long)gf.r; gf.k += 3; mix((long long)gf.r); mix(gf.t); mix(gf.k);
    struct S3 *s3 = &g3[i % 3];
    s3->f3 = (unsigned)(s3->f2 + i); s3->f2 -= s3->f5 * 3; s3->f5 ^= i; s3->f4 += s3->f0;
    mix(g3[2].f3); mix(g3[2].f2); mix(g3[i % 3].f5); mix(g3[(i + 1) % 3].f4); mix(g3[1].f0 + g3[2].f1);
    struct B copy = gb[(i + 1) % 3]; copy.y ^= 0x5a5; gb[(i + 2) % 3] = copy; mix(copy.y);
  }
  printf("%016llx\n", h);
  printf("%d %u %lld %llx %d | %llx %d | %lld %llu | %u %lld %u | %lld %lld | %u %llx %lld\n", ga.a, ga.b, (long long)ga.d,
         (unsigned long long)ga.e, ga.s, (unsigned long long)gb[1].x, gb[2].y, (long long)gc.p, (unsigned long long)gc.q, gd.u,
         (long long)gd.v, gd.w, (long long)ge.m, (long long)ge.n, gf.k, (unsigned long long)gf.r, (long long)gf.t);
  return (int)(h & 0x7f);
}
