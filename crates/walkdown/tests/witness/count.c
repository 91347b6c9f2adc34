// witness: written
// A counter and a sum that moves with it: the loop invariant s == 2*i is
// what proves the error call dead.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 1000) return 0;
  int i = 0, s = 0;
  while (i < n) {
    i++;
    s += 2;
  }
  if (s != 2 * i) reach_error();
  return 0;
}
