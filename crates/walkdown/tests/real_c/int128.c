/* LP64 only */
/* __int128 arithmetic (clang's i128): add, sub, mul, division and
   remainder (signed and unsigned, by constants and by variables), shifts
   by constant and variable amounts, comparisons, conversions to and from
   narrower integers, selects and loop-carried values; every result is
   folded into a checksum that gcc must agree with. */
#include <stdio.h>
typedef unsigned __int128 u128;
typedef __int128 s128;

static unsigned long long state = 0x9e3779b97f4a7c15ULL;
static unsigned long long next(void) {
  state ^= state << 13; state ^= state >> 7; state ^= state << 17;
  return state;
}
static unsigned long long fold(unsigned long long h, u128 v) {
  h ^= (unsigned long long)v; h *= 0x100000001b3ULL;
  h ^= (unsigned long long)(v >> 64); h *= 0x100000001b3ULL;
  return h;
}
static u128 mk(void) {
  unsigned long long a = next(), b = next();
  switch (a & 3) {
  case 0: return (u128)b;                       /* fits 64 bits */
  case 1: return ((u128)a << 64) | b;           /* full width */
  case 2: return (u128)(s128)(long long)b;      /* sign-extended */
  default: return ((u128)(a >> 40) << 64) | b;  /* a small high half */
  }
}

u128 g = ((u128)0x0123456789abcdefULL << 64) | 0xfedcba9876543210ULL;
s128 gs = -((s128)1 << 100) + 12345;

int main(void) {
  unsigned long long h = 1469598103934665603ULL;
  u128 acc = 0;
  for (int i = 0; i < 400; i++) {
    u128 x = mk(), y = mk();
    unsigned k = (unsigned)(next() % 128);
    s128 sx = (s128)x, sy = (s128)y;
    h = fold(h, x + y); h = fold(h, x - y); h = fold(h, x * y);
    h = fold(h, x & y); h = fold(h, x | y); h = fold(h, x ^ ~y);
    h = fold(h, x << k); h = fold(h, x >> k); h = fold(h, (u128)(sx >> k));
    h = fold(h, x << 3); h = fold(h, x >> 70); h = fold(h, (u128)(sx >> 64)); h = fold(h, (u128)(sx >> 1));
    if (y != 0) {
      h = fold(h, x / y); h = fold(h, x % y);
      if (!(sy == -1 && sx == (s128)((u128)1 << 127))) { h = fold(h, (u128)(sx / sy)); h = fold(h, (u128)(sx % sy)); }
    }
    h = fold(h, x / 10); h = fold(h, (u128)(sx / 7)); h = fold(h, (u128)(sx % -1000003));
    h = fold(h, (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5);
    h = fold(h, (sx < sy) | (sx <= sy) << 1 | (sx > sy) << 2 | (sx >= sy) << 3 | (sx < 0) << 4 | (x == (u128)(unsigned)x) << 5);
    h = fold(h, (u128)(int)x + (u128)(unsigned short)y + (u128)(s128)(signed char)x + (u128)(long long)(sy >> 30));
    acc = (acc * 31 + (x > y ? x : y)) ^ (acc >> 17);
    sx = -sx;
    h = fold(h, (u128)sx);
  }
  h = fold(h, acc);
  h = fold(h, g * g + (u128)gs);
  g += (u128)h; gs -= (s128)(long long)h;
  h = fold(h, g / (u128)(gs < 0 ? -gs : gs));
  printf("%016llx %016llx %016llx\n", h, (unsigned long long)(g >> 64), (unsigned long long)gs);
  return (int)(h & 0x7f);
}
