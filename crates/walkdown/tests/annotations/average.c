// annotations: every configuration finds the error
// The mean of the samples in range: the analyzer assumed the count is not
// zero, so the check that the mean is positive is verified under that
// premise only; with no sample in range the mean is the -1 of no data.
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);
extern void __VERIFIER_assumed(int cond, const char *id);
extern void __VERIFIER_assert_verified(int cond, const char *premise);

int main(void) {
  int sum = 0, count = 0;
  for (int i = 0; i < 5; i++) {
    int s = __VERIFIER_nondet_int();
    if (s >= 0 && s < 100) { sum += s + 1; count++; }
  }
  __VERIFIER_assumed(count != 0, "count_nonzero");
  int mean = count == 0 ? -1 : sum / count;
  __VERIFIER_assert_verified(mean >= 1, "count_nonzero");
  if (!(mean >= 1)) reach_error();
  return 0;
}
