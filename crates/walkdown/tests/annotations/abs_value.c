// annotations: every configuration finds the error
// The absolute value is non-negative except for INT_MIN, which the analyzer
// assumed away; the classification before it is verified.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int classify(int x) {
  if (x % 2 == 0) { if (x % 3 == 0) return 6; return 2; }
  if (x % 5 == 0) return 5;
  return 1;
}

int main(void) {
  int x = __VERIFIER_nondet_int();
  int c = classify(x);
  __VERIFIER_assert_verified(c >= 1 && c <= 6, "true");
  if (!(c >= 1 && c <= 6)) reach_error();
  __VERIFIER_assumed(x != -2147483647 - 1, "not_min");
  int a = x < 0 ? -x : x;
  __VERIFIER_assert_verified(a >= 0, "not_min");
  if (!(a >= 0)) reach_error();
  return 0;
}
