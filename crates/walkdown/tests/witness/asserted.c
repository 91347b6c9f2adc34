// witness: written
// The assertion is a call: its callee's parameter is constrained only
// through the caller's argument, so the check of the callee's error call
// looks back to the caller's invariant (res + cnt == a + b, cnt == 0).
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
void __VERIFIER_assert(int cond) {
  if (!cond) {
    reach_error();
  }
}
int main() {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (a < 0 || a > 1000 || b < 0 || b > 1000) return 0;
  int res = a, cnt = b;
  while (cnt > 0) {
    cnt = cnt - 1;
    res = res + 1;
  }
  __VERIFIER_assert(res == a + b);
  return 0;
}
