// annotations: every configuration finds the error
// Eight assumption ids, more than the annotation pass keeps apart: those
// never negated in a premise are merged into one that holds when all of
// them do, so pruning stays sound. Only the last reading can break its
// assumption (the mask lets it reach 255).
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int total = 0;
  int v0 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v0 < 200, "small0");
  total += v0;
  __VERIFIER_assert_verified(v0 < 200, "small0");
  if (!(v0 < 200)) reach_error();
  int v1 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v1 < 200, "small1");
  total += v1;
  __VERIFIER_assert_verified(v1 < 200, "small1");
  if (!(v1 < 200)) reach_error();
  int v2 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v2 < 200, "small2");
  total += v2;
  __VERIFIER_assert_verified(v2 < 200, "small2");
  if (!(v2 < 200)) reach_error();
  int v3 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v3 < 200, "small3");
  total += v3;
  __VERIFIER_assert_verified(v3 < 200, "small3");
  if (!(v3 < 200)) reach_error();
  int v4 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v4 < 200, "small4");
  total += v4;
  __VERIFIER_assert_verified(v4 < 200, "small4");
  if (!(v4 < 200)) reach_error();
  int v5 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v5 < 200, "small5");
  total += v5;
  __VERIFIER_assert_verified(v5 < 200, "small5");
  if (!(v5 < 200)) reach_error();
  int v6 = __VERIFIER_nondet_int() & 0x7f;
  __VERIFIER_assumed(v6 < 200, "small6");
  total += v6;
  __VERIFIER_assert_verified(v6 < 200, "small6");
  if (!(v6 < 200)) reach_error();
  int v7 = __VERIFIER_nondet_int() & 0xff;
  __VERIFIER_assumed(v7 < 200, "small7");
  total += v7;
  __VERIFIER_assert_verified(v7 < 200, "small7");
  if (!(v7 < 200)) reach_error();
  return total > 2000;
}
