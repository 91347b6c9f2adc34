/* reach_error needs a 128-bit value above 2^90, built from two inputs by
   a wide shift and a wide add: the concolic engine solves the wide
   comparison. */
extern void abort(void);
void reach_error(void) { abort(); }
extern long long __VERIFIER_nondet_longlong(void);
int main(void) {
  long long a = __VERIFIER_nondet_longlong();
  long long b = __VERIFIER_nondet_longlong();
  __int128 x = ((__int128)a << 40) + b;
  if (x > ((__int128)1 << 90)) {
    reach_error();
  }
  return 0;
}
