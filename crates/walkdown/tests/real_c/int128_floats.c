/* LP64 only */
/* __int128 to and from float and double (gcc calls libgcc's __floattidf,
   __fixdfti and their kin; clang emits sitofp/uitofp/fptosi/fptoui on i128):
   values of every magnitude, both signs, rounding to nearest; the bits of
   every result go into a checksum. Conversions out of range (undefined)
   are left out. */
#include <stdio.h>
typedef unsigned __int128 u128;
typedef __int128 s128;
static unsigned long long state = 0x2545F4914F6CDD1DULL;
static unsigned long long next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
int main(void) {
  unsigned long long h = 0;
  for (int i = 0; i < 3000; i++) {
    unsigned long long a = next(), b = next();
    unsigned sh = (unsigned)(a % 128);
    u128 x = (((u128)a << 64) | b) >> sh;
    s128 sx = (s128)x;
    if (i & 1) sx = -sx;
    double d = (double)x, ds = (double)sx;
    float f = (float)x, fs = (float)sx;
    unsigned long long bd, bds; unsigned bf, bfs;
    __builtin_memcpy(&bd, &d, 8); __builtin_memcpy(&bds, &ds, 8); __builtin_memcpy(&bf, &f, 4); __builtin_memcpy(&bfs, &fs, 4);
    h = (h ^ bd) * 0x100000001b3ULL; h = (h ^ bds) * 0x100000001b3ULL; h = (h ^ bf) * 0x100000001b3ULL; h = (h ^ bfs) * 0x100000001b3ULL;
    u128 back = (u128)d; s128 sback = (s128)ds; s128 fback = (s128)fs;
    if (sh > 0) { h = (h ^ (unsigned long long)back ^ (unsigned long long)(back >> 64)) * 0x100000001b3ULL; }
    h = (h ^ (unsigned long long)sback ^ (unsigned long long)(sback >> 64) ^ (unsigned long long)(fback >> 70)) * 0x100000001b3ULL;
  }
  printf("%016llx\n", h);
  return 0;
}
