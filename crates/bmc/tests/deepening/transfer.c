/* A loop that moves `moves` units from `left` to `level`: after it,
 * level == start + moves. The loop abstraction enters the loop in an
 * arbitrary state, so it proves that only when the loop head's invariants
 * restrict the state: the equality level + left == start + moves (the
 * relational analysis) and left >= 0 (the intervals), which together give
 * left == 0 and the sum on exit. With equalities alone, left could be
 * negative on exit. The check is in a function of its own, as SV-COMP's
 * __VERIFIER_assert is. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
static void check(int ok) {
  if (!ok) reach_error(); /* SUM */
}
int main(void) {
  int start = __VERIFIER_nondet_int();
  int moves = __VERIFIER_nondet_int();
  if (start > 5000 || moves < 0 || moves > 5000) return 0;
  int level = start, left = moves;
  while (left > 0) {
    left--;
    level++;
  }
  check(level == start + moves);
  return 0;
}
