// witness: written
// The error is dead because x < 0 || y > 0 holds at the loop head: a
// disjunctive invariant, which intervals and octagons cannot state.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  int x = -1, y = 0;
  for (int i = 0; i < n; i++) {
    if (x < 0) {
      x = 0;
      y = 1;
    } else {
      y++;
    }
  }
  if (x >= 0 && y <= 0) reach_error();
  return 0;
}
