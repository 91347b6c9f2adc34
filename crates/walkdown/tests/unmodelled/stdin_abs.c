/* Standard input is at end of file natively: getchar gives EOF and reads
   no test value, so the value read next is x, as in walkdown's runs. */
#include <stdio.h>
#include <stdlib.h>
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int c = getchar();
  int x = __VERIFIER_nondet_int();
  if (c == EOF && abs(x) == 5 && x < 0)
    reach_error();
  return 0;
}
