#include <string.h>
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a[3] = {3, 1, 2};
  /* Neither a body nor a model (musl's uses inline assembly): does
     nothing in walkdown's runs, clears the array natively. */
  explicit_bzero(a, sizeof a);
  int x = __VERIFIER_nondet_int();
  if (x == 42) reach_error();         /* reached natively too */
  if (a[0] == 3 && x == 7) reach_error();   /* only without the clearing */
  return 0;
}
