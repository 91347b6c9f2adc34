// annotations: every configuration finds the error
// Two errors: one in code nobody verified (every configuration must find
// it), one behind an assumption about the input's range.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int mode = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int y = 0;
  for (int i = 0; i < 5; i++) {
    if (x & (1 << i)) y += 2; else y += 1;
  }
  __VERIFIER_assert_verified(y >= 5 && y <= 10, "true");
  if (!(y >= 5 && y <= 10)) reach_error();
  if (mode == 3 && x == 12345) reach_error();
  __VERIFIER_assumed(x < 1000000, "small_input");
  int t = x * 2000;
  __VERIFIER_assert_verified(t >= 0 || x < 0, "small_input");
  if (!(t >= 0 || x < 0)) reach_error();
  return 0;
}
