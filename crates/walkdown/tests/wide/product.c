/* reach_error needs the high half of a 64x64-bit product to be 5 and its
   low byte 0x2a: the bounded engine solves the wide multiplication. */
extern void abort(void);
void reach_error(void) { abort(); }
extern long long __VERIFIER_nondet_longlong(void);
int main(void) {
  long long a = __VERIFIER_nondet_longlong();
  long long b = __VERIFIER_nondet_longlong();
  __int128 x = (__int128)a * b + 7;
  if ((unsigned __int128)x >> 64 == 5 && (x & 0xff) == 0x2a) {
    reach_error();
  }
  return 0;
}
