// witness: written
// A while, a for and a do-while, each with its own invariant: up and down
// add up to n, the for loop's bound, a step of three.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 100) return 0;
  int up = 0, down = n;
  while (up < n) {
    up++;
    down--;
  }
  if (down != 0) reach_error();
  int last = 0;
  for (int j = 0; j < n; j++) {
    last = j;
  }
  if (n > 0 && last != n - 1) reach_error();
  int k = 0;
  do {
    k += 3;
  } while (k < 30);
  if (k != 30) reach_error();
  return 0;
}
