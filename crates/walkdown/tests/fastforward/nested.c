/* Nested loops: the inner one is fast-forwarded on every outer iteration. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int rows = __VERIFIER_nondet_int();
  if (rows < 0 || rows > 300)
    return 0;
  int total = 0;
  for (int a = 0; a < rows; a++) {
    int b;
    for (b = 0; b < 2000; b += 2) {
      total += 5;
    }
    for (int c = a; c > -1000; c -= 3) {
      total -= 1;
    }
    total += b;
  }
  if (total == 299 * 7 && rows == 300)
    reach_error();
  return total & 0x7f;
}
