/* LP64 only */
/* Objects of 4 GiB or more keep their size (not cut modulo 2^32), so
   accesses past 4 GiB are in bounds; a 1 GiB array is not materialized:
   the run touches a few pages of it. */
#include <stdio.h>
static char big[(1L << 32) + 16];
static int gig[1 << 28];
static long init[(1 << 25) + 3] = { 1, 2, 3 };
int main(void) {
  big[(1L << 32) + 8] = 3;
  big[5] = 4;
  gig[(1 << 28) - 1] = 40;
  gig[12345678] = 2;
  init[(1 << 25) + 2] = init[1] + 5;
  long s = big[(1L << 32) + 8] + big[5] + big[(1L << 32) + 15] + gig[(1 << 28) - 1] + gig[12345678] + init[(1 << 25) + 2];
  printf("%ld %zu\n", s, sizeof big);
  return (int)s;
}
