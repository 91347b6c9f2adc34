// witness: written: the loop equalities the bounded engine
// Unsigned counters: x + y == n holds in wrapping arithmetic, which the
// sound analysis (reading values as signed) cannot state; the bounded
// engine's induction step proves the equality inductive, and the witness
// states it with the analysis' intervals.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) { abort(); }
void __VERIFIER_assert(int cond) {
  if (!cond) {
    reach_error();
  }
}
int main() {
  unsigned int n = __VERIFIER_nondet_uint();
  unsigned int x = n, y = 0;
  while (x > 0) {
    x--;
    y++;
  }
  __VERIFIER_assert(y == n);
  return 0;
}
