// annotations: every configuration finds the error; nothing to prune (the unverified code comes last)
// Most of the program is verified without condition; the error sits in the
// one function nobody verified, after the verified part.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int table[16];

int lookup(int k) {
  int i = k & 15;
  __VERIFIER_assert_verified(i >= 0 && i < 16, "true");
  if (!(i >= 0 && i < 16)) reach_error();
  return table[i];
}

int unchecked(int a, int b) {
  if (a > 100 && b == a + 7) return -1;
  return a;
}

int main(void) {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  int s = 0;
  for (int r = 0; r < 4; r++) s += lookup(a >> r);
  if (unchecked(a, b) < 0) reach_error();
  return s;
}
