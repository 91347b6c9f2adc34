// witness: written: complete unwinding
// Reversing the low byte twice gives it back. No invariant of a loop
// excludes the error (it needs every bit of r); the bounded engine's
// unwinding covers every execution (8 iterations per loop), and the
// witness states the loop bounds the induction step keeps inductive.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  unsigned int x = __VERIFIER_nondet_uint();
  unsigned int r = 0, back = 0;
  for (int i = 0; i < 8; i++) {
    r = (r << 1) | ((x >> i) & 1u);
  }
  for (int j = 0; j < 8; j++) {
    back = (back << 1) | ((r >> j) & 1u);
  }
  if (back != (x & 0xffu)) {
    reach_error();
  }
  return 0;
}
