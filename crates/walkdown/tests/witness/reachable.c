// witness: not written: covered
// The error is reached when the input is 7: no correctness witness.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) { abort(); }
int main() {
  int x = __VERIFIER_nondet_int();
  int steps = 0;
  while (x > 0 && steps < 5) {
    x -= 2;
    steps++;
  }
  if (x == -1 && steps == 4) reach_error();
  return 0;
}
