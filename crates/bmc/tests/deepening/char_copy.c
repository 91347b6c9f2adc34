/* `j` copies `i` through a signed char: ignoring wrapping proposes
 * `j == i` at the head, which fails once `i` reaches 128. The induction
 * step must drop that candidate, and the error (reachable after 128
 * iterations) must not be proved unreachable. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  int i = 0, j = 0;
  while (__VERIFIER_nondet_int()) {
    i++;
    j = (signed char)i;
  }
  if (j != i) reach_error(); /* COPY */
  return 0;
}
