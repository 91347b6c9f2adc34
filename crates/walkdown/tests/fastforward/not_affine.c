/* Loops that must not be fast-forwarded (a branch on a value that is not
   affine in the counter, a memory write, an input in the body, a head
   value reset to a constant) run as they are: the results are the plain
   run's. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int odd = 0;
  for (int i = 0; i < 5000; i++) {
    if (i % 3 == 1)
      odd++;
  }
  int a[16] = {0};
  for (int i = 0; i < 3000; i++)
    a[i & 15] += 1;
  int sum = 0;
  for (int i = 0; i < 5; i++)
    sum += __VERIFIER_nondet_int() & 1;
  int flag = 0, t;
  for (t = 0; t < 4000; t++) {
    if (t == 2500)
      flag = 9;
  }
  int sq = 0;
  for (int i = 0; i < 2000; i++)
    sq = i * i;
  if (odd == 1667 && a[3] == 188 && flag == 9 && sq == 1999 * 1999)
    reach_error();
  return (odd + sum + flag) & 0xff;
}
