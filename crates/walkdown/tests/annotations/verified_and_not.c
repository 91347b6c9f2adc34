// annotations: every configuration finds the error
// One assertion verified without condition (a loop bound), one verified
// under an assumption about a division, and the error behind the second.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int d = __VERIFIER_nondet_int();
  int sum = 0;
  for (int i = 0; i < 4; i++) {
    if (n & (1 << i)) sum += i;
  }
  __VERIFIER_assert_verified(sum <= 6, "true");
  if (!(sum <= 6)) reach_error();
  if (d > 0) {
    __VERIFIER_assumed(d != 7, "not_seven");
    int q = 700 / d;
    __VERIFIER_assert_verified(q != 100, "not_seven");
    if (!(q != 100)) reach_error();
  }
  return 0;
}
