// annotations: every configuration finds the error; may and may+must keep at most 2 tests
// Two assumptions, one premise over both: the check fails only when the
// scaled value overflowed (`scaled`) although the index was in range
// (`in_range` held), so the search must break one assumption and keep the
// other.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int table[8];
int noise;

void stir(int k) {
  for (int i = 0; i < 5; i++) {
    if (k % (i + 2) == 0) noise++; else noise--;
  }
}

int main(void) {
  int idx = __VERIFIER_nondet_int();
  int factor = __VERIFIER_nondet_int();
  stir(factor);
  __VERIFIER_assumed(idx >= 0 && idx < 8, "in_range");
  if (idx < 0 || idx >= 8) return 0;
  __VERIFIER_assumed(factor >= 0 && factor <= 1000000, "scaled");
  int v = factor * 3000;
  table[idx] = v;
  __VERIFIER_assert_verified(v >= 0 || factor < 0, "in_range && scaled");
  if (!(v >= 0 || factor < 0)) reach_error();
  return 0;
}
