// annotations: every configuration finds the error
// An assertion verified with an empty premise (no assumption, the same as
// "true"), one verified under an assumption, and the error behind it.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  int lo = a < 0 ? 0 : a > 9 ? 9 : a;
  __VERIFIER_assert_verified(lo >= 0 && lo <= 9, "");
  if (!(lo >= 0 && lo <= 9)) reach_error();
  if (b > 0) {
    __VERIFIER_assumed(b < 1000, "small");
    int s = b * 3 + lo;
    __VERIFIER_assert_verified(s != 3100, "small");
    if (!(s != 3100)) reach_error();
  }
  return 0;
}
