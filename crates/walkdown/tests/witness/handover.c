// witness: written: Houdini
// Two loops hand a count on. The induction step proves the error dead
// with an equality per loop (left + moved == n, back + rest == moved);
// the witness states them, with the first loop's restated at the second
// over the variables in scope there (its head dominates), once Houdini
// has checked them again.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  unsigned int n = __VERIFIER_nondet_uint();
  unsigned int left = n, moved = 0;
  while (left != 0) {
    left--;
    moved++;
  }
  unsigned int rest = moved, back = 0;
  while (rest != 0) {
    rest--;
    back++;
  }
  if (back != n) {
    reach_error();
  }
  return 0;
}
