// annotations: every configuration finds the error
// Digits accumulated into an int: each step was assumed not to overflow;
// the result is then verified non-negative under all of those assumptions
// at once (one id for the loop's site).
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int value = 0;
  int len = __VERIFIER_nondet_int();
  if (len < 1 || len > 11) return 0;
  for (int i = 0; i < len; i++) {
    int d = __VERIFIER_nondet_int();
    if (d < 0 || d > 9) return 1;
    __VERIFIER_assumed(value <= (2147483647 - d) / 10, "acc_fits");
    value = value * 10 + d;
  }
  __VERIFIER_assert_verified(value >= 0, "acc_fits");
  if (!(value >= 0)) reach_error();
  return 0;
}
