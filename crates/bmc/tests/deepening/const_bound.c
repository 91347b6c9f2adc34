/* A loop of 10 iterations: deepening reaches an unwinding where no cut
 * point is reachable, and the dead outcome is unreachable without bound. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int s = 0;
  for (int i = 0; i < 10; i++)
    s += x & 1;
  if (s > 10) reach_error(); /* DEAD */
  if (s == 10) return 1; /* TEN */
  return 0;
}
