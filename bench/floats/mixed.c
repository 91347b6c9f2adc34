// A float and a double compared through a conversion, an integer from a
// float, and the sign of zero.
extern float __VERIFIER_nondet_float(void);
extern double __VERIFIER_nondet_double(void);
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
  float f = __VERIFIER_nondet_float();
  double d = __VERIFIER_nondet_double();
  int n = __VERIFIER_nondet_int();
  if ((double)f - d == 1e-9) {
    if (f * 1e9f > 1.5f) reach_error();
    return 1;
  }
  if (f == 0.0f && 1.0f / f < 0.0f) return 2;     /* -0.0 */
  if ((float)n == 16777217.0f) return 3;           /* never: not a float */
  if ((float)n > 16777216.0f && (float)n < 16777220.0f) return 4;
  return 0;
}
