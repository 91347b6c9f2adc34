/* Inner loops whose runs split where their counter meets the outer one:
   a branch on `j == i` (three stretches, the outer step of `t` stays
   702 until i reaches 700), a count-down that breaks at `i + 7` (its exit
   value follows i until i + 7 is out of its range); then one stepping by
   3 up to the outer counter (its length is not affine in i, so that outer
   loop runs iteration by iteration). */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 3000)
    return 0;
  long t = 0;
  int last = -1;
  int odd = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 700; j++) {
      if (j == i)
        t += 3;
      else
        t += 1;
    }
    int m;
    for (m = 1000; m > 0; m--) {
      if (m == i + 7)
        break;
    }
    last = m;
  }
  for (int i = 0; i < n / 8; i++) {
    int q;
    for (q = 0; q < i; q += 3) {
    }
    odd += q - i;
  }
  if (t == 702L * 700 + 700L * 400 && last == 0)
    reach_error();
  return (int)((t + last + odd) & 0x7f);
}
