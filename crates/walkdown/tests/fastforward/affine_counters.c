/* Counters with fixed steps, and a bound that depends on an input. */
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);

int main(void) {
  unsigned n = __VERIFIER_nondet_uint() % 100000u;
  unsigned i = 0, j = 5;
  long long k = -40;
  while (i < n) {
    i++;
    j += 3;
    k -= 7;
  }
  if (j == 5 + 3 * 77777u && k == -40 - 7 * 77777ll)
    reach_error();
  unsigned x = 0;
  while (x < 300000u) {
    if (x < 100000u) {
      x++;
    } else {
      x += 2;
    }
  }
  return (int)(x - 300000u) + (int)(j & 7u);
}
