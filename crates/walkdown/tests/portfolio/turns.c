/* Both engines have work here, so with one worker they take turns: the
   concolic engine covers the branches on `mode` and `x` at once, the
   bounded engine finds 24 equal inputs (one path of 2^24, which the
   concolic search flips its way through slowly), and a checked division
   no input can fail is left for the proofs. The run ends when every goal is settled. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

static int weigh(int mode, int x) {
  switch (mode) {
  case 0: return x > 100 ? 2 : 1;
  case 1: return x < -5 ? 3 : 4;
  case 2: return (x & 6) == 6 ? 5 : 6;
  default: return 7;
  }
}

int main(void) {
  int spoiled = 0;
  for (int i = 0; i < 24; i++) {
    if (__VERIFIER_nondet_int() != 10)
      spoiled = 1;
  }
  int mode = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int w = weigh(mode, x);
  int q = 1000 / w; /* w is never 0 */
  if (!spoiled)
    reach_error();
  return q > 100;
}
