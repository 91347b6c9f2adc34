/* Three nested loops whose innermost body compares the counters with each
   other and with an input: each inner loop's path changes where its
   counter meets an outer one, so whole outer iterations are jumped over
   (the counters at the error are all `target`). */
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);

int main(void) {
  unsigned n = __VERIFIER_nondet_uint();
  unsigned target = __VERIFIER_nondet_uint();
  if (n > 120)
    return 1;
  unsigned i, j, k;
  unsigned seen = 0;
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++) {
      for (k = 0; k < n; k++) {
        if (i == j && j == k && k == target)
          reach_error();
      }
    }
    seen = j + k;
  }
  return (int)(i + seen) & 0x7f;
}
