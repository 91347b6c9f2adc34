// A low-pass filter over a few samples; alarms on thresholds of the state.
extern float __VERIFIER_nondet_float(void);
extern void reach_error(void);
int main(void) {
  float y = 0.0f;
  for (int i = 0; i < 3; i++) {
    float x = __VERIFIER_nondet_float();
    if (!(x >= -100.0f && x <= 100.0f)) return 0;
    y = 0.75f * y + 0.25f * x;
  }
  if (y > 40.0f) {
    if (y < 40.01f) reach_error();
    return 1;
  }
  if (y < -12.5f && y > -12.5001f) return 2;
  return 0;
}
