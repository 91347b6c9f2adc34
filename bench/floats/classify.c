// fpclassify by hand: NaN, infinities, subnormals, huge magnitudes.
extern double __VERIFIER_nondet_double(void);
extern void reach_error(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (x != x) return 1;
  if (x == 1.0 / 0.0) return 2;
  if (x == -1.0 / 0.0) return 3;
  if (x != 0.0 && x > -2.2250738585072014e-308 && x < 2.2250738585072014e-308) {
    if (x * 4503599627370496.0 == 3.0) reach_error(); /* infeasible: x = 3 * 2^-52 is normal */
    return 4;
  }
  if (x > 1e308) return 5;
  if ((long)x == 123456789012L) return 6;
  return 0;
}
