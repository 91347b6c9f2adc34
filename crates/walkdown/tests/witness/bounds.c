// witness: written
// Three loops whose bounds the interval analysis finds: a while, a for
// counting down and a do-while stepping by three; each error call needs
// its loop's invariant to be seen dead.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 100) return 0;
  int i = 0;
  while (i < n) {
    i++;
  }
  if (i > 100) reach_error();
  int left = 0;
  for (int j = 50; j > 0; j--) {
    left = j;
  }
  if (left > 50) reach_error();
  unsigned k = 0;
  do {
    k += 3;
  } while (k < 30);
  if (k > 40) reach_error();
  return 0;
}
