/* An example for walkdown: classifies a pair of inputs.  The error is
 * reached only when x is large and y is zero, where the division by y
 * would also fail. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int classify(int x, int y) {
  if (x > 100) {
    if (y == 0) {
      reach_error();
      return -1;
    }
    return x / y;
  }
  if (x < 0)
    return 0;
  return x % 10;
}

int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  return classify(x, y) > 5;
}
