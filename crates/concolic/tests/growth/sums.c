// Sums of inputs that grow with the run: each iteration adds an input to
// x and y, so every new term depends on all inputs read so far (its leaf
// set is as long as the iteration count). The loop ends only when the
// inputs run out (the reads return 0 then and `stop` is 0).
extern unsigned int __VERIFIER_nondet_uint(void);
extern void reach_error(void);

int main(void) {
  unsigned int x = 0, y = 0;
  while (1) {
    unsigned int stop = __VERIFIER_nondet_uint();
    if (stop == 0)
      break;
    x = x + 16u * __VERIFIER_nondet_uint();
    y = y + 32u * __VERIFIER_nondet_uint();
    if (2u * x - y == 8u)
      reach_error();
  }
  return 0;
}
