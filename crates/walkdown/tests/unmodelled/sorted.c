#include <stdlib.h>
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int main(void) {
  int a[3] = {3, 1, 2};
  qsort(a, 3, sizeof a[0], cmp);      /* no model: does nothing in walkdown's runs */
  int x = __VERIFIER_nondet_int();
  if (x == 42) reach_error();         /* reached natively too */
  if (a[0] == 3 && x == 7) reach_error();   /* only without the sort */
  return 0;
}
