// annotations: every configuration finds the error
// An analyzer proved the scaled reading non-negative assuming the product
// does not overflow; the filter loop before it is verified and only adds
// paths.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int history[6];

int filter(int x) {
  int acc = 0;
  for (int i = 0; i < 6; i++) {
    if (x & (1 << i)) acc += history[i]; else acc -= 1;
  }
  return acc;
}

int main(void) {
  int reading = __VERIFIER_nondet_int();
  int gain = __VERIFIER_nondet_int();
  if (reading < 0 || gain < 1 || gain > 1000) return 0;
  int f = filter(reading);
  __VERIFIER_assert_verified(f <= 6, "true");
  if (!(f <= 6)) reach_error();
  __VERIFIER_assumed((long long)reading * gain <= 2147483647LL, "no_mul_overflow");
  int scaled = reading * gain;
  __VERIFIER_assert_verified(scaled >= 0, "no_mul_overflow");
  if (!(scaled >= 0)) reach_error();
  return 0;
}
