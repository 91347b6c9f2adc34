// A double division Z3 does not solve within the float query limit, and
// an integer branch beside it.
extern double __VERIFIER_nondet_double(void);
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  double v = __VERIFIER_nondet_double();
  double w = __VERIFIER_nondet_double();
  int n = __VERIFIER_nondet_int();
  if (v * 3.0 == 7.5 && w / v == 0.125) reach_error();
  if (n == 12345) return 3;
  return 0;
}
