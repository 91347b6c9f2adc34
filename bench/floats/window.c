// A sensor reading in a narrow float window, then an error behind it.
extern float __VERIFIER_nondet_float(void);
extern void reach_error(void);
int main(void) {
  float t = __VERIFIER_nondet_float();
  if (t != t) return 1;            /* NaN */
  if (t > 36.6f && t < 36.6001f) {
    if (t * 2.0f > 73.2001f) reach_error();
    return 2;
  }
  return 0;
}
