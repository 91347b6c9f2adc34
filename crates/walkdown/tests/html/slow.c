/* A goal behind the preimage of a 64-bit mixing function (squarings,
 * xor-shifts and a second input, eight rounds): no engine settles it in seconds, so the HTML
 * report test can interrupt gen during the search. Written for walkdown's
 * tests. */
extern unsigned long long __VERIFIER_nondet_ulonglong(void);

int main(void) {
  unsigned long long x = __VERIFIER_nondet_ulonglong();
  unsigned long long y = __VERIFIER_nondet_ulonglong();
  for (int i = 0; i < 8; i++) {
    x = x * x + y;
    x ^= x >> 31;
    y = y * 0x9e3779b97f4a7c15ULL + x;
  }
  if (x == 0x0123456789abcdefULL) return 1;
  return 0;
}
