// Exact products and quotients of doubles.
extern double __VERIFIER_nondet_double(void);
extern void reach_error(void);
int main(void) {
  double v = __VERIFIER_nondet_double();
  double w = __VERIFIER_nondet_double();
  if (v * 3.0 == 7.5) {
    if (w / v == 0.125) reach_error();
    return 1;
  }
  if (v > 1e300 && w < -1e-300 && w > -1e-299) return 2;
  return 0;
}
