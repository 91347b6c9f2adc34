// annotations: every configuration finds the error; nothing to prune (the assumption is made again in every iteration, so no run is verified to its end)
// A ring buffer whose index was assumed to stay below its size: the
// analyzer verified the store and the read-back under that assumption; the
// wrap-around is off by one, so a long enough run breaks it.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int ring[8];

int main(void) {
  int head = 0;
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 12) return 0;
  for (int i = 0; i < n; i++) {
    int v = __VERIFIER_nondet_int();
    __VERIFIER_assumed(head >= 0 && head < 8, "head_in_range");
    ring[head & 7] = v;
    __VERIFIER_assert_verified(head < 8, "head_in_range");
    if (!(head < 8)) reach_error();
    head = head == 8 ? 0 : head + 1;
  }
  return 0;
}
