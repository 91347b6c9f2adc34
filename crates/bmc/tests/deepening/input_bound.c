/* A loop whose trip count is an input: no unwinding makes every cut point
 * unreachable, so the dead outcomes inside and after it are proved by the
 * loop abstraction (x does not change in the loop; s does, so `s == 7`
 * stays infeasible within a bound: s is always even, which the
 * abstraction does not know). */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int s = 0;
  if (x < 0) return 0;
  for (int i = 0; i < n; i++) {
    s += 2;
    if (x < 0) reach_error(); /* INSIDE */
    if (s == 7) reach_error(); /* EVEN */
  }
  if (x < -5) reach_error(); /* AFTER */
  return s > 3;
}
