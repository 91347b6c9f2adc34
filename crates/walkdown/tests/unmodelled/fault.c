/* An out-of-bounds write after a call without a model that returns
   nothing (so no input shifts): confirmed natively by AddressSanitizer. */
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a[4] = {0};
  srandom(7);
  int i = __VERIFIER_nondet_int();
  if (i > 100 && i < 104)
    a[i - 96] = 1;   /* i - 96 is 5 to 7: out of bounds */
  return a[0];
}
