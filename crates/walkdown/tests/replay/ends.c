/* How a test can end, one input choosing: 0 exits with 3, 1 reaches
 * reach_error, 2 divides by zero, 3 dereferences null, 4 fails an assert,
 * 5 writes past an array (seen only with --sanitize), 6 overflows a signed
 * int (seen only with --sanitize). Written for walkdown's replay test. */
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int table[4];

int main(void) {
  int what = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  if (what == 0) return 3;
  if (what == 1) reach_error();
  if (what == 2) return 10 / x;
  if (what == 3) { int *p = 0; return *p + x; }
  if (what == 4) assert(x > 0);
  if (what == 5) { table[x] = 1; return table[0]; }
  if (what == 6) return x + 2147483647;
  return 0;
}
