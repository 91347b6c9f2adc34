/* The transfer loop on unsigned counters: `left--` and `done++` wrap in
 * the signed reading the relational analysis uses, so it records no
 * equality; `left + done == total` holds modulo 2^32, which the induction
 * step proves inductive from the candidate a run ignoring wrapping
 * proposes, and with it `done == total` on exit. */
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
static void check(int ok) {
  if (!ok) reach_error(); /* SUM */
}
int main(void) {
  unsigned total = __VERIFIER_nondet_uint();
  unsigned left = total, done = 0;
  while (left != 0) {
    left--;
    done++;
  }
  check(done == total);
  return 0;
}
