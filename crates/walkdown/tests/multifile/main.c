/* A program of two files (with other.c): main reads two inputs and hands
 * them to check_pair, a function of the other file, which alone reaches
 * the planted bug. Both files have a static clamp of their own. */
#include "other.h"

extern int __VERIFIER_nondet_int(void);

static int clamp(int v) {
  if (v < 0)
    return 0;
  return v;
}

int main(void) {
  int a = clamp(__VERIFIER_nondet_int());
  int b = __VERIFIER_nondet_int();
  if (a > 10)
    return check_pair(a, b);
  return 0;
}
