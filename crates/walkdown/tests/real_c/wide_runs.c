/* Runs of packed bit-fields longer than 128 bits: clang reads and writes
   each run as one integer of 136 to 248 bits, three or four 64-bit limbs
   in walkdown, with shifts and masks across the limbs; signed fields
   need sign extension from their top bit. */
#include <stdio.h>
#pragma pack(push, 1)
struct G { char c; long long a : 60; long long b : 60; long long d : 20; };                        /* 140 -> i144 */
struct H { unsigned long long x : 63; signed long long y : 63; unsigned z : 26; };                 /* 152 */
struct I { signed long long p : 50; unsigned long long q : 61; signed long long r : 62; unsigned long long s : 59; short t; }; /* 232 -> i232 */
#pragma pack(pop)

static struct G gg[2] = { { 1, -5, 576460752303423487LL, -524288 }, { 2, 7, -8, 9 } };
static struct H gh = { 0x7fffffffffffffffULL, -4611686018427387904LL, 0x3ffffff };
static struct I gi = { -562949953421312LL, 0x1fffffffffffffffULL, 2305843009213693951LL, 5, -3 };

static unsigned long long h = 14695981039346656037ULL;
static void mix(long long v) { h = (h ^ (unsigned long long)v) * 0x100000001b3ULL; }

int main(void) {
  for (int i = 0; i < 60; i++) {
    struct G *g = &gg[i & 1];
    g->a = g->a * 3 - i; g->b ^= g->a << 2; g->d = g->d + 977 * i; g->c++;
    mix(g->a); mix(g->b); mix(g->d); mix(g->c); mix(g->a < g->b);
    gh.x = gh.x * 5 + (unsigned long long)gh.y; gh.y = gh.y / 3 - (long long)gh.z; gh.z += 12345;
    mix((long long)gh.x); mix(gh.y); mix(gh.z);
    gi.p = gi.p * 7 + gi.t; gi.q -= gi.s; gi.r = (gi.r >> 1) ^ gi.p; gi.s = gi.s * 9 + 1; gi.t = (short)(gi.t - 5);
    mix(gi.p); mix((long long)gi.q); mix(gi.r); mix((long long)gi.s); mix(gi.t);
    struct I copy = gi; copy.r = -copy.r; mix(copy.r + copy.p);
    gg[(i + 1) & 1] = *g;
  }
  printf("%016llx %lld %lld %lld %lld %lld\n", h, (long long)gg[0].a, (long long)gg[1].d, (long long)gh.y, (long long)gi.r, (long long)gi.q);
  return (int)(h & 0x7f);
}
