// s == 3 * i at the loop head proves the error dead, for any trip count.
extern unsigned __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  unsigned n = __VERIFIER_nondet_uint();
  unsigned i = 0, s = 0;
  while (i < n) {
    i++;
    s += 3;
  }
  if (s != 3 * i) reach_error();
  return 0;
}
